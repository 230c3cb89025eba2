// Fails the test run when it leaves the repository changed: a test that writes beside a checked-in
// program (a stack's config file, a packed tarball, an edited source) shows up here, by path.
// Compared with the tree as it was when the run started, not with a clean one: what the developer
// had changed or added before the run is theirs, and only what the run changed counts (a file
// already modified counts again when its bytes change). Ignored files count too (the stack config
// files Pulumi.*.yaml are ignored), except the build output and installs every run rewrites:
// dist/, node_modules (the program folders' links to the installed package, scripts/consumer.ts)
// and bench/work/. Every test project uses it (vitest.config.mts); in a directory that is not a
// git checkout it does nothing and says so.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { repoRoot } from "../../scripts/toolchain";

/** Changes the run may make: build output and installs. */
const rewritten = (file: string) =>
  file.startsWith("dist/") || file.startsWith("bench/work/") || file.split("/").includes("node_modules");

/** Each path `git status` lists, with its status and a digest of its bytes (a symlink: its target). */
function snapshot(): Map<string, string> | undefined {
  // Not a checkout of its own (an unpacked copy, or one inside another repository): nothing to compare.
  const top = spawnSync("git", ["rev-parse", "--show-toplevel"], { cwd: repoRoot, encoding: "utf8" });
  if (top.status !== 0 || fs.realpathSync(top.stdout.trim()) !== fs.realpathSync(repoRoot)) return undefined;
  const r = spawnSync(
    "git",
    ["status", "--porcelain=v1", "-z", "--ignored=matching", "--untracked-files=all", "--no-renames"],
    { cwd: repoRoot, encoding: "utf8" },
  );
  if (r.status !== 0) return undefined;
  const entries = new Map<string, string>();
  for (const entry of r.stdout.split("\0").filter(Boolean)) {
    const [status, file] = [entry.slice(0, 2), entry.slice(3)];
    if (rewritten(file)) continue;
    const abs = path.join(repoRoot, file);
    const stat = fs.lstatSync(abs, { throwIfNoEntry: false });
    const bytes = !stat
      ? "absent"
      : stat.isSymbolicLink()
        ? `-> ${fs.readlinkSync(abs)}`
        : stat.isFile()
          ? createHash("sha256").update(fs.readFileSync(abs)).digest("hex")
          : "directory";
    entries.set(file, `${status} ${bytes}`);
  }
  return entries;
}

// On globalThis: each project loads this file anew, in the same process, and the first one's
// snapshot is the tree before any test ran.
const before = Symbol.for("pulumi-storage-user.repo-before-run");
const memo = globalThis as { [before]?: Map<string, string> | null };

export default function setup() {
  if (memo[before] === undefined) {
    memo[before] = snapshot() ?? null;
    if (memo[before] === null)
      console.warn(
        `test/support/repo-guard.ts: ${repoRoot} is not a git checkout; files the tests leave in it are not checked`,
      );
  }
  return () => {
    const start = memo[before];
    if (!start) return;
    const end = snapshot();
    if (!end) return;
    const changed = [...new Set([...start.keys(), ...end.keys()])].filter((f) => start.get(f) !== end.get(f)).sort();
    if (changed.length > 0) {
      // Vitest prints an error thrown here but keeps the exit status of the tests.
      process.exitCode = 1;
      throw new Error(
        `the test run changed the repository (tests must write to temporary directories; programs run from copies, scripts/stack.ts programCopy):\n` +
          changed
            .map((f) => `  ${f}: ${start.get(f) ?? "(not listed before)"} -> ${end.get(f) ?? "(as committed now)"}`)
            .join("\n"),
      );
    }
  };
}
