/**
 * Installs this package into its own node_modules as real files, the layout `npm install
 * pulumi-storage-user` gives a user (package.json + the `files` list). Programs inside the repo
 * (the root program, tests, benchmarks) then resolve "pulumi-storage-user" exactly as an infra
 * repo does, and the closure serializer sees the provider under node_modules/ (see
 * provider/serializable.ts). A symlink would not do: Node resolves it to the real path, outside
 * node_modules. Files are replaced one by one with a rename, and only when they changed, so a
 * program running meanwhile never finds the package missing or a file half written.
 */
import * as fs from "node:fs";
import * as path from "node:path";

const root = path.resolve(__dirname, "..", "..");
const pkg = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8"));
const target = path.join(root, "node_modules", pkg.name);

function listFiles(dir: string, base = dir): string[] {
  if (!fs.existsSync(dir)) return [];
  if (fs.statSync(dir).isFile()) return [path.relative(base, dir)];
  return fs.readdirSync(dir).flatMap((entry) => listFiles(path.join(dir, entry), base));
}

const wanted = ["package.json", ...(pkg.files as string[]).flatMap((entry) => listFiles(path.join(root, entry), root))];
for (const rel of wanted) {
  const from = path.join(root, rel);
  const to = path.join(target, rel);
  const content = fs.readFileSync(from);
  if (fs.existsSync(to) && fs.readFileSync(to).equals(content)) continue;
  fs.mkdirSync(path.dirname(to), { recursive: true });
  fs.writeFileSync(`${to}.tmp-${process.pid}`, content);
  fs.renameSync(`${to}.tmp-${process.pid}`, to);
}
const keep = new Set(wanted);
for (const rel of listFiles(target, target)) if (!keep.has(rel)) fs.rmSync(path.join(target, rel));
