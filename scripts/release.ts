/**
 * `npm run release -- <X.Y.Z>`: cuts a release (docs/development.md "Releases"), all or nothing.
 *
 * Checks first, changing nothing: main checked out, no change in the tree (untracked files
 * included), something under `[Unreleased]`, a version above package.json's and every release's,
 * no tag of that version yet, the committed surface reports (surface/) those of the build, and
 * every name the public surface removed or changed since the last release (`surfaceChanges`)
 * named in `[Unreleased]`'s upgrade notes. Then it makes the release in a worktree of its own:
 * moves `[Unreleased]` to `[X.Y.Z] - <today>`, sets the version in package.json and its lock and
 * everywhere else it is spelt, rebuilds and regenerates the SDKs and the reports, commits `Release
 * X.Y.Z`, then records that commit in releases.json in a commit of its own (a commit cannot hold
 * its own hash). Only when all of that passed does main move to those commits, and `vX.Y.Z` and
 * `sdk/go/vX.Y.Z` (the tag `go get` resolves the Go module in sdk/go by) tag the release commit.
 * Any failure leaves the tree, main and the tags as they were.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import {
  allParts,
  Change,
  exportedNames,
  goChanges,
  makeReports,
  namedIn,
  Part,
  pythonChanges,
  reportChanges,
  reportFiles,
  staleMessage,
  staleReports,
} from "./surface";
import { repoRoot } from "./toolchain";
import { compareVersions } from "./version";

const gitIn = (root: string, args: string[]) =>
  execFileSync("git", args, { cwd: root, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim();
const readIn = (root: string, file: string) => fs.readFileSync(path.join(root, file), "utf8");

/** Where the version is spelt besides package.json: tarball names (install lines, the examples' dependencies) and the generated SDKs. */
const spellings: Array<[RegExp, RegExp]> = [
  [/^(?!CHANGELOG\.md$)/, /pulumi-storage-user-(\d+\.\d+\.\d+[^\s/]*?)\.tgz/g],
  [/^sdk\//, /"version": "([^"]+)"|^\s*version = "([^"]+)"|semver\.MustParse\("([^"]+)"\)/gm],
];

/** `file:line: version` for each place in the tree at `root` that spells another version than `version`. */
export function staleSpellings(version: string, root: string = repoRoot): string[] {
  const lock = JSON.parse(readIn(root, "package-lock.json")) as {
    version: string;
    packages: { "": { version: string } };
  };
  const pkg = JSON.parse(readIn(root, "package.json")) as { version: string };
  const found = [
    `package.json: ${pkg.version}`,
    `package-lock.json: ${lock.version}`,
    `package-lock.json: ${lock.packages[""].version}`,
  ];
  for (const file of gitIn(root, ["ls-files"]).split("\n"))
    for (const [files, pattern] of spellings) {
      if (!files.test(file) || !fs.existsSync(path.join(root, file))) continue;
      const text = readIn(root, file);
      for (const m of text.matchAll(pattern))
        found.push(`${file}:${text.slice(0, m.index).split("\n").length}: ${m.slice(1).find(Boolean)}`);
    }
  return found.filter((f) => !f.endsWith(`: ${version}`));
}

/** `[Unreleased]`'s lines of CHANGELOG.md (heading excluded), and where they stand. */
export function unreleased(changelog: string): { start: number; end: number; lines: string[] } {
  const lines = changelog.split("\n");
  const start = lines.indexOf("## [Unreleased]");
  const end = lines.findIndex((l, i) => i > start && (l.startsWith("## ") || /^\[[^\]]+\]: /.test(l)));
  return { start, end, lines: start < 0 ? [] : lines.slice(start + 1, end < 0 ? undefined : end) };
}

/** The text of `[Unreleased]`'s `### Upgrade notes`, up to the next heading. */
export function upgradeNotes(changelog: string): string {
  const { lines } = unreleased(changelog);
  const at = lines.indexOf("### Upgrade notes");
  if (at < 0) return "";
  const end = lines.findIndex((l, i) => i > at && l.startsWith("#"));
  return lines.slice(at + 1, end < 0 ? undefined : end).join("\n");
}

/**
 * The names the public surface removed or changed between the release commit `commit` and the
 * tree at `root` (whose reports are current): the reports' differences for TypeScript, the codes
 * and the config keys, apidiff for Go, griffe for Python. The last release's reports are read from
 * its commit; a release made before they existed (0.6.0 and earlier) has them made from its
 * sources, built with this tree's node_modules.
 */
export function surfaceChanges(commit: string, root: string = repoRoot): { changes: Change[]; exported: Set<string> } {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "psu-release-old-"));
  try {
    const old = path.join(tmp, "tree");
    fs.mkdirSync(old);
    execFileSync("bash", ["-c", `git archive "${commit}" | tar -x -C "${old}"`], { cwd: root, stdio: "pipe" });
    const before = new Map<string, string>();
    const missing: Part[] = [];
    for (const part of ["typescript", "codes", "config"] as Part[])
      for (const file of reportFiles[part]) {
        if (fs.existsSync(path.join(old, file))) before.set(file, readIn(old, file));
        else if (!missing.includes(part)) missing.push(part);
      }
    if (missing.length) {
      fs.symlinkSync(path.join(root, "node_modules"), path.join(old, "node_modules"));
      execFileSync(path.join(root, "node_modules", ".bin", "tsc"), ["-p", "tsconfig.build.json"], {
        cwd: old,
        stdio: "pipe",
      });
      for (const [file, text] of makeReports(old, missing)) before.set(file, text);
    }
    const after = new Map(
      [...reportFiles.typescript, ...reportFiles.codes, ...reportFiles.config].map((f) => [f, readIn(root, f)]),
    );
    return {
      changes: [...reportChanges(before, after), ...goChanges(old, root), ...pythonChanges(old, root)],
      exported: exportedNames(before),
    };
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

class Refusal extends Error {}
const refuse = (message: string): never => {
  throw new Refusal(message);
};

/** Cuts `version` in the clone at `root`; throws a Refusal (nothing changed) or another error (nothing changed either). */
export function release(version: string, root: string = repoRoot, log: (line: string) => void = console.log): void {
  const git = (...args: string[]) => gitIn(root, args);
  const current = (JSON.parse(readIn(root, "package.json")) as { version: string }).version;
  const releases = JSON.parse(readIn(root, "releases.json")) as Record<string, { commit: string }>;
  if (!/^\d+\.\d+\.\d+$/.test(version)) refuse(`usage: npm run release -- <X.Y.Z> (package.json: ${current})`);
  for (const v of [current, ...Object.keys(releases)])
    if (compareVersions(version, v) <= 0) refuse(`${version} is not above ${v} (package.json, releases.json)`);
  const branch = execFileSync("git", ["branch", "--show-current"], { cwd: root, encoding: "utf8" }).trim();
  if (branch !== "main")
    refuse(`a release is cut on main; this is ${branch ? `the branch ${branch}` : "a detached HEAD"}`);
  const dirty = git("status", "--porcelain", "--untracked-files=all");
  if (dirty) refuse(`the tree has changes; commit or stash them first:\n${dirty}`);
  for (const tag of [`v${version}`, `sdk/go/v${version}`])
    if (git("tag", "--list", tag)) refuse(`the tag ${tag} exists already`);
  // Go's semantic import versioning: from v2 on, the module path ends in /vN, or no Go tool takes the module.
  const goModule = /^module (\S+)/m.exec(readIn(root, "sdk/go/go.mod"))![1];
  const major = Number(version.split(".")[0]);
  if (major >= 2 && !goModule.endsWith(`/v${major}`))
    refuse(
      `the Go SDK's module path, ${goModule}, must end in /v${major} for ${version}: change it in sdk/go/go.mod and the Go importBasePath in provider/plugin/schema.ts first`,
    );
  const changelog = readIn(root, "CHANGELOG.md");
  const { start, lines } = unreleased(changelog);
  if (start < 0 || !lines.some((l) => l.trim()))
    refuse("CHANGELOG.md has nothing under ## [Unreleased]: a release says what it changes");

  // The surface: the committed reports are the build's, and each removal or change since the last release is in the notes.
  log("release: checking the public surface against surface/ and the last release");
  const stale = staleReports(root, allParts);
  if (stale.length) refuse(staleMessage(stale));
  const last = Object.keys(releases).sort(compareVersions).at(-1);
  if (last) {
    const { changes, exported } = surfaceChanges(releases[last].commit, root);
    const notes = upgradeNotes(changelog);
    const unnamed = changes.filter((c) => !namedIn(notes, c, exported));
    if (unnamed.length)
      refuse(
        `the public surface changed since ${last} in ways CHANGELOG.md's [Unreleased] "### Upgrade notes" do not name:\n` +
          unnamed.map((c) => `  ${c.surface}: ${c.name}: ${c.what}`).join("\n") +
          "\nsay in the upgrade notes what each means for a user and what to do, naming it (e.g. `" +
          unnamed[0].name.split(".").slice(-2).join(".") +
          "`)",
      );
    log(`release: ${changes.length} removed or changed name(s) since ${last}, each named in the upgrade notes`);
  }

  // The release, made aside: the clone changes only once it is whole.
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "psu-release-"));
  const stage = path.join(tmp, "stage");
  const start0 = git("rev-parse", "HEAD");
  git("worktree", "add", "--quiet", "--detach", stage, "HEAD");
  try {
    const run = (cmd: string, args: string[]) =>
      execFileSync(cmd, args, { cwd: stage, stdio: ["ignore", "pipe", "inherit"] });
    fs.symlinkSync(path.join(root, "node_modules"), path.join(stage, "node_modules"));
    const date = new Date().toISOString().slice(0, 10);
    const text = changelog.split("\n");
    text.splice(start + 1, 0, "", `## [${version}] - ${date}`);
    const links = text.findIndex((l) => /^\[\d+\.\d+\.\d+\]: /.test(l));
    text.splice(links < 0 ? text.length : links, 0, `[${version}]: #${version.replace(/\./g, "")}---${date}`);
    fs.writeFileSync(path.join(stage, "CHANGELOG.md"), text.join("\n"));
    run("npm", ["version", version, "--no-git-tag-version", "--ignore-scripts"]);
    for (const file of gitIn(stage, ["ls-files"]).split("\n")) {
      if (!spellings[0][0].test(file) || !fs.existsSync(path.join(stage, file))) continue;
      const before = readIn(stage, file);
      const after = before.replace(spellings[0][1], `pulumi-storage-user-${version}.tgz`);
      if (after !== before) fs.writeFileSync(path.join(stage, file), after);
    }
    // The plugin's schema reads package.json; the SDKs are generated from the schema as built, and the reports from both.
    log("release: building, generating the SDKs and the surface reports");
    run("npm", ["run", "--silent", "build"]);
    run("bash", ["tools/sdkgen/generate.sh"]);
    for (const [file, report] of makeReports(stage, allParts)) fs.writeFileSync(path.join(stage, file), report);
    const spelt = staleSpellings(version, stage);
    if (spelt.length) refuse(`still another version than ${version}:\n${spelt.join("\n")}`);
    gitIn(stage, ["add", "--all"]);
    gitIn(stage, ["commit", "--quiet", "-m", `Release ${version}`]);
    const commit = gitIn(stage, ["rev-parse", "HEAD"]);
    const recorded = { ...releases, [version]: { commit } };
    fs.writeFileSync(path.join(stage, "releases.json"), `${JSON.stringify(recorded, null, 2)}\n`);
    gitIn(stage, ["commit", "--quiet", "-m", `releases.json: ${version} is ${commit.slice(0, 7)}`, "releases.json"]);
    const head = gitIn(stage, ["rev-parse", "HEAD"]);

    // Publish: main moves forward to the two commits, then the tags. Undone whole if either fails.
    const made: string[] = [];
    try {
      git("merge", "--ff-only", "--quiet", head);
      for (const tag of [`v${version}`, `sdk/go/v${version}`]) {
        git("tag", "--annotate", "--message", `Release ${version}`, tag, commit);
        made.push(tag);
      }
    } catch (err) {
      for (const tag of made) git("tag", "--delete", tag);
      git("reset", "--quiet", "--hard", start0);
      throw err;
    }
    log(git("log", "--oneline", "-2"));
    log(
      `released ${version}: tags v${version} and sdk/go/v${version} on ${commit.slice(0, 7)}; its artifacts: git checkout v${version} && npm run artifacts -- --out <dir>`,
    );
  } finally {
    try {
      git("worktree", "remove", "--force", stage);
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  }
}

function main(): void {
  try {
    release(process.argv[2] ?? "");
  } catch (err) {
    console.error(`release: ${err instanceof Refusal ? err.message : (err as Error).stack}`);
    console.error("release: nothing was changed");
    process.exit(1);
  }
}

if (require.main === module) main();
