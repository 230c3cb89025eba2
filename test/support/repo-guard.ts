// Fails the test run when it leaves the repository changed: a test that writes beside a checked-in
// program (a stack's config file, a packed tarball, an edited source) shows up here, by path. The
// tree is compared with itself at the start of the run, not with a clean one: what the developer had
// changed before is theirs (a file already modified counts again when its bytes change). Ignored
// files count too (stacks' Pulumi.*.yaml are), except the build output and installs every run
// rewrites: dist/, node_modules and bench/work/. Every test project uses it (vitest.config.mts).
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { repoRoot } from "../../scripts/toolchain";

/** Each path `git status` lists, with its status and its bytes' digest (a symlink: its target); undefined outside a checkout of its own. */
function snapshot(): Map<string, string> | undefined {
  const top = spawnSync("git", ["rev-parse", "--show-toplevel"], { cwd: repoRoot, encoding: "utf8" });
  if (top.status !== 0 || fs.realpathSync(top.stdout.trim()) !== fs.realpathSync(repoRoot)) return undefined;
  const args = ["status", "--porcelain=v1", "-z", "--ignored=matching", "--untracked-files=all", "--no-renames"];
  const r = spawnSync("git", args, { cwd: repoRoot, encoding: "utf8" });
  if (r.status !== 0) return undefined;
  const entries = new Map<string, string>();
  for (const entry of r.stdout.split("\0").filter(Boolean)) {
    const file = entry.slice(3);
    if (/^(dist|bench\/work)\//.test(file) || file.split("/").includes("node_modules")) continue;
    const abs = path.join(repoRoot, file);
    const stat = fs.lstatSync(abs, { throwIfNoEntry: false });
    const bytes = !stat
      ? "absent"
      : stat.isSymbolicLink()
        ? `-> ${fs.readlinkSync(abs)}`
        : stat.isFile()
          ? createHash("sha256").update(fs.readFileSync(abs)).digest("hex")
          : "directory";
    entries.set(file, `${entry.slice(0, 2)} ${bytes}`);
  }
  return entries;
}

// On globalThis: each project loads this file anew, in the same process; the first one's snapshot is the tree before any test ran.
const before = Symbol.for("pulumi-storage-user.repo-before-run");
const memo = globalThis as { [before]?: Map<string, string> | null };

export default function setup() {
  if (memo[before] === undefined) {
    memo[before] = snapshot() ?? null;
    if (!memo[before])
      console.warn(
        `test/support/repo-guard.ts: ${repoRoot} is not a git checkout; files the tests leave in it are not checked`,
      );
  }
  return () => {
    const [start, end] = [memo[before], snapshot()];
    if (!start || !end) return;
    const changed = [...new Set([...start.keys(), ...end.keys()])].filter((f) => start.get(f) !== end.get(f)).sort();
    if (changed.length === 0) return;
    // Vitest prints an error thrown here but keeps the exit status of the tests.
    process.exitCode = 1;
    const list = changed.map(
      (f) => `  ${f}: ${start.get(f) ?? "(not listed before)"} -> ${end.get(f) ?? "(as committed now)"}`,
    );
    throw new Error(
      `the test run changed the repository (tests write to temporary directories; programs run from copies, scripts/stack.ts programCopy):\n${list.join("\n")}`,
    );
  };
}
