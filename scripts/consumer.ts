/**
 * The package as users get it, for the repo's own programs: this checkout packed with `npm pack`
 * and installed with npm into a consumer project in the cache, next to the `@pulumi/pulumi` the
 * programs run. The program folders (test/programs, examples, bench/programs) get a
 * `node_modules` symlink to it, so `import "pulumi-storage-user"` resolves to installed files
 * under node_modules, exactly as in an infra repo, and the closure serializer writes the one-line
 * `require` users get. Nothing is written into the repo's own node_modules.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { cacheDir, refuseInUnitTier, repoRoot } from "./toolchain";

/** Folders whose programs import the package. */
export const programRoots = ["test/programs", "examples", "bench/programs"];

function npm(args: string[], cwd: string): string {
  return execFileSync("npm", args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, npm_config_loglevel: "error" } });
}

/** Packs dist/ (built already) and installs it; a no-op when the packed bytes did not change. */
export function installConsumer(): string {
  refuseInUnitTier("installing the packed package");
  const dir = path.join(cacheDir, "consumer", createHash("sha256").update(repoRoot).digest("hex").slice(0, 12));
  fs.mkdirSync(dir, { recursive: true });
  const [packed] = JSON.parse(npm(["pack", "--json", "--ignore-scripts", "--pack-destination", dir], repoRoot)) as Array<{ filename: string }>;
  const bytes = fs.readFileSync(path.join(dir, packed.filename));
  // A name per content: npm then installs a changed package instead of trusting its lock file.
  const tarball = `pulumi-storage-user-${createHash("sha256").update(bytes).digest("hex").slice(0, 16)}.tgz`;
  fs.renameSync(path.join(dir, packed.filename), path.join(dir, tarball));
  const root = JSON.parse(fs.readFileSync(path.join(repoRoot, "package.json"), "utf8")) as { devDependencies: Record<string, string> };
  const manifest = {
    name: "pulumi-storage-user-consumer",
    private: true,
    dependencies: { "pulumi-storage-user": `file:./${tarball}`, "@pulumi/pulumi": root.devDependencies["@pulumi/pulumi"] },
    devDependencies: { "@types/node": root.devDependencies["@types/node"], typescript: root.devDependencies.typescript },
  };
  const manifestPath = path.join(dir, "package.json");
  const current = fs.existsSync(manifestPath) ? fs.readFileSync(manifestPath, "utf8") : "";
  if (current !== JSON.stringify(manifest, null, 2) || !fs.existsSync(path.join(dir, "node_modules", "pulumi-storage-user"))) {
    fs.writeFileSync(manifestPath, JSON.stringify(manifest, null, 2));
    npm(["install", "--no-audit", "--no-fund", "--prefer-offline"], dir);
  }
  for (const f of fs.readdirSync(dir)) if (f.endsWith(".tgz") && f !== tarball) fs.rmSync(path.join(dir, f));
  for (const rel of programRoots) {
    const link = path.join(repoRoot, rel, "node_modules");
    if (!fs.existsSync(path.dirname(link))) continue;
    const target = path.join(dir, "node_modules");
    if (fs.lstatSync(link, { throwIfNoEntry: false })?.isSymbolicLink() && fs.readlinkSync(link) === target) continue;
    fs.rmSync(link, { force: true, recursive: true });
    fs.symlinkSync(target, link);
  }
  return dir;
}
