/**
 * The package as users get it, for the repo's own programs: this checkout packed with `npm pack`
 * and installed with npm into a consumer project in the cache, next to the `@pulumi/pulumi` the
 * programs run. The program folders (test/programs, examples, bench/programs) get a
 * `node_modules` symlink to it, so `import "pulumi-storage-user"` resolves to installed files
 * under node_modules, exactly as in an infra repo, and the closure serializer writes the one-line
 * `require` users get. Nothing is written into the repo's own node_modules.
 *
 * Each install is a directory of its own, named by what it holds (the packed bytes and the
 * manifest), built aside and renamed into place whole, and never changed afterwards: a plugin
 * running from one install cannot see a later pack (an edit of docs/*.md during a run, another
 * test run, another checkout sharing the cache), and two processes packing the same bytes at once
 * end with one complete directory. A test run packs and installs once, in test/support/global-setup.ts,
 * and hands that directory to every test file (PULUMI_STORAGE_USER_CONSUMER_DIR).
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { cacheDir, refuseInUnitTier, repoRoot } from "./toolchain";

/** Folders whose programs import the package. */
export const programRoots = ["test/programs", "examples", "bench/programs"];

/** Set by test/support/cli-setup.ts in each test file's process: the install the test run's global setup made. */
export const consumerDirVariable = "PULUMI_STORAGE_USER_CONSUMER_DIR";

/** Installs unused this long are removed (a run touches its install when it starts). */
const UNUSED_MS = 24 * 3600_000;

function npm(args: string[], cwd: string): string {
  return execFileSync("npm", args, {
    cwd,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, npm_config_loglevel: "error" },
  });
}

/** This process's install: the package as it was when the process first asked. */
let installed: string | undefined;

const sha256 = (data: string | Buffer) => createHash("sha256").update(data).digest("hex");

/**
 * Packs dist/ (built already) and installs it, returning the install's directory; reuses an
 * install of the same bytes. Once per process, and in a test file's process not at all: it
 * returns the test run's install, so the files of one run all use the package as it was when
 * the run started.
 */
export function installConsumer(): string {
  refuseInUnitTier("installing the packed package");
  const given = process.env[consumerDirVariable] ?? installed;
  if (given) return given;
  const root = path.join(cacheDir, "consumer");
  fs.mkdirSync(root, { recursive: true });
  const staging = fs.mkdtempSync(path.join(root, ".staging-"));
  fs.chmodSync(staging, 0o755); // mkdtemp's 0700 would stay on the install
  let dir: string;
  try {
    const [packed] = JSON.parse(
      npm(["pack", "--json", "--ignore-scripts", "--pack-destination", staging], repoRoot),
    ) as Array<{ filename: string }>;
    // A name per content: npm then installs a changed package instead of trusting a lock file.
    const tarball = `pulumi-storage-user-${sha256(fs.readFileSync(path.join(staging, packed.filename))).slice(0, 16)}.tgz`;
    fs.renameSync(path.join(staging, packed.filename), path.join(staging, tarball));
    const pkg = JSON.parse(fs.readFileSync(path.join(repoRoot, "package.json"), "utf8")) as {
      devDependencies: Record<string, string>;
    };
    const manifest = JSON.stringify(
      {
        name: "pulumi-storage-user-consumer",
        private: true,
        dependencies: {
          "pulumi-storage-user": `file:./${tarball}`,
          "@pulumi/pulumi": pkg.devDependencies["@pulumi/pulumi"],
        },
        devDependencies: {
          "@types/node": pkg.devDependencies["@types/node"],
          typescript: pkg.devDependencies.typescript,
        },
      },
      null,
      2,
    );
    dir = path.join(root, `pkg-${sha256(manifest).slice(0, 16)}`);
    if (!fs.existsSync(dir)) {
      fs.writeFileSync(path.join(staging, "package.json"), manifest);
      npm(["install", "--no-audit", "--no-fund", "--prefer-offline"], staging);
      try {
        fs.renameSync(staging, dir);
      } catch (err) {
        // Another process renamed the same content into place first: theirs is as good.
        if (!fs.existsSync(dir)) throw err;
      }
    }
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
  }
  const now = new Date();
  fs.utimesSync(dir, now, now);
  removeUnused(root, dir);
  for (const rel of programRoots) {
    const link = path.join(repoRoot, rel, "node_modules");
    if (!fs.existsSync(path.dirname(link))) continue;
    const target = path.join(dir, "node_modules");
    if (fs.lstatSync(link, { throwIfNoEntry: false })?.isSymbolicLink() && fs.readlinkSync(link) === target) continue;
    if (!fs.lstatSync(link, { throwIfNoEntry: false })?.isSymbolicLink())
      fs.rmSync(link, { force: true, recursive: true });
    // Swapped by rename: a program resolving through the link meanwhile finds the old install or the new, never none.
    const next = `${link}.${process.pid}.tmp`;
    fs.rmSync(next, { force: true });
    fs.symlinkSync(target, next);
    fs.renameSync(next, link);
  }
  installed = dir;
  return dir;
}

/** Removes installs no run has started from for a day, and staging left by a killed install. */
function removeUnused(root: string, current: string): void {
  for (const name of fs.readdirSync(root)) {
    const p = path.join(root, name);
    if (p === current || !/^(pkg-[0-9a-f]{16}|\.staging-.*)$/.test(name)) continue;
    const stat = fs.statSync(p, { throwIfNoEntry: false });
    if (stat && Date.now() - stat.mtimeMs > UNUSED_MS) fs.rmSync(p, { recursive: true, force: true });
  }
}
