/**
 * Installs this package into its own node_modules as real files, the layout `npm install
 * pulumi-storage-user` gives a user (package.json + the `files` list). Programs inside the repo
 * (the root program, tests, benchmarks) then resolve "pulumi-storage-user" exactly as an infra
 * repo does, and the closure serializer sees the provider under node_modules/ (see resource.ts).
 * A symlink would not do: Node resolves it to the real path, outside node_modules.
 * The copy is staged and swapped in, so a program running meanwhile never sees a half copy.
 */
import * as fs from "node:fs";
import * as path from "node:path";

const root = path.resolve(__dirname, "..", "..");
const pkg = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8"));
const target = path.join(root, "node_modules", pkg.name);
const staged = `${target}.staged-${process.pid}`;
const retired = `${target}.retired-${process.pid}`;

fs.rmSync(staged, { recursive: true, force: true });
fs.mkdirSync(staged, { recursive: true });
fs.copyFileSync(path.join(root, "package.json"), path.join(staged, "package.json"));
for (const entry of pkg.files as string[]) {
  const from = path.join(root, entry);
  if (fs.existsSync(from)) fs.cpSync(from, path.join(staged, entry), { recursive: true });
}
if (fs.existsSync(target)) fs.renameSync(target, retired);
fs.renameSync(staged, target);
fs.rmSync(retired, { recursive: true, force: true });
