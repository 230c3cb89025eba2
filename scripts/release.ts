/**
 * `npm run release -- <X.Y.Z>`: cuts a release (docs/development.md "Releases"). Refuses a dirty
 * tree, an empty `[Unreleased]` and a version not above package.json's; moves `[Unreleased]` to
 * `[X.Y.Z] - <today>`, sets the version in package.json and its lock, and from there everywhere
 * else it is spelt; commits `Release X.Y.Z`, then records that commit in releases.json in a
 * commit of its own (a commit cannot hold its own hash).
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { repoRoot } from "./toolchain";

const git = (args: string[]) => execFileSync("git", args, { cwd: repoRoot, encoding: "utf8" }).trim();
const read = (file: string) => fs.readFileSync(path.join(repoRoot, file), "utf8");
const write = (file: string, text: string) => fs.writeFileSync(path.join(repoRoot, file), text);

/** Where the version is spelt besides package.json: tarball names (install lines, the examples' dependencies) and the generated SDKs. */
const spellings: Array<[RegExp, RegExp]> = [
  [/^(?!CHANGELOG\.md$)/, /pulumi-storage-user-(\d+\.\d+\.\d+[^\s/]*?)\.tgz/g],
  [/^sdk\//, /"version": "([^"]+)"|^\s*version = "([^"]+)"|semver\.MustParse\("([^"]+)"\)/gm],
];

/** `file:line: version` for each place that spells another version than `version`. */
export function staleSpellings(version: string): string[] {
  const lock = JSON.parse(read("package-lock.json")) as { version: string; packages: { "": { version: string } } };
  const pkg = JSON.parse(read("package.json")) as { version: string };
  const found = [
    `package.json: ${pkg.version}`,
    `package-lock.json: ${lock.version}`,
    `package-lock.json: ${lock.packages[""].version}`,
  ];
  for (const file of git(["ls-files"]).split("\n"))
    for (const [files, pattern] of spellings) {
      if (!files.test(file) || !fs.existsSync(path.join(repoRoot, file))) continue;
      const text = read(file);
      for (const m of text.matchAll(pattern))
        found.push(`${file}:${text.slice(0, m.index).split("\n").length}: ${m.slice(1).find(Boolean)}`);
    }
  return found.filter((f) => !f.endsWith(`: ${version}`));
}

const parse = (v: string) => /^(\d+)\.(\d+)\.(\d+)(-.+)?$/.exec(v)?.slice(1);

/** Whether `next` (X.Y.Z) comes after `current` (X.Y.Z or a pre-release of it, which its release follows). */
function above(next: string, current: string): boolean {
  const [a, b] = [parse(next)!, parse(current)!];
  for (let i = 0; i < 3; i++) if (Number(a[i]) !== Number(b[i])) return Number(a[i]) > Number(b[i]);
  return b[3] !== undefined;
}

function fail(message: string): never {
  console.error(`release: ${message}`);
  process.exit(1);
}

function main(): void {
  const version = process.argv[2] ?? "";
  const current = (JSON.parse(read("package.json")) as { version: string }).version; // not packageVersion: read after the checks
  if (!/^\d+\.\d+\.\d+$/.test(version)) fail(`usage: npm run release -- <X.Y.Z> (package.json: ${current})`);
  if (!above(version, current)) fail(`${version} is not above the current version, ${current}`);
  // Go's semantic import versioning: from v2 on, the module path ends in /vN, or no Go tool takes the module.
  const goModule = /^module (\S+)/m.exec(read("sdk/go/go.mod"))![1];
  const major = Number(version.split(".")[0]);
  if (major >= 2 && !goModule.endsWith(`/v${major}`))
    fail(
      `the Go SDK's module path, ${goModule}, must end in /v${major} for ${version}: change it in sdk/go/go.mod and the Go importBasePath in provider/plugin/schema.ts first`,
    );
  const dirty = git(["status", "--porcelain"]);
  if (dirty) fail(`the tree has changes; commit or stash them first:\n${dirty}`);
  const lines = read("CHANGELOG.md").split("\n");
  const start = lines.indexOf("## [Unreleased]");
  const end = lines.findIndex((l, i) => i > start && (l.startsWith("## ") || /^\[[^\]]+\]: /.test(l)));
  if (start < 0 || !lines.slice(start + 1, end).some((l) => l.trim()))
    fail("CHANGELOG.md has nothing under ## [Unreleased]: a release says what it changes");
  const date = new Date().toISOString().slice(0, 10);
  lines.splice(start + 1, 0, "", `## [${version}] - ${date}`);
  const links = lines.findIndex((l) => /^\[\d+\.\d+\.\d+\]: /.test(l));
  lines.splice(links < 0 ? lines.length : links, 0, `[${version}]: #${version.replace(/\./g, "")}---${date}`);
  write("CHANGELOG.md", lines.join("\n"));
  const run = (cmd: string, args: string[]) => execFileSync(cmd, args, { cwd: repoRoot, stdio: "inherit" });
  run("npm", ["version", version, "--no-git-tag-version", "--ignore-scripts"]);
  for (const file of git(["ls-files"]).split("\n")) {
    if (!spellings[0][0].test(file) || !fs.existsSync(path.join(repoRoot, file))) continue;
    const text = read(file);
    const next = text.replace(spellings[0][1], `pulumi-storage-user-${version}.tgz`);
    if (next !== text) write(file, next);
  }
  // The plugin's schema reads package.json; the SDKs are generated from the schema as built.
  run("npm", ["run", "build"]);
  run("bash", ["tools/sdkgen/generate.sh"]);
  const stale = staleSpellings(version);
  if (stale.length) fail(`still another version than ${version}:\n${stale.join("\n")}`);
  git(["add", "--all"]);
  git(["commit", "--quiet", "-m", `Release ${version}`]);
  const commit = git(["rev-parse", "HEAD"]);
  const releases = { ...(JSON.parse(read("releases.json")) as object), [version]: { commit } };
  write("releases.json", `${JSON.stringify(releases, null, 2)}\n`);
  git(["commit", "--quiet", "-m", `releases.json: ${version} is ${commit.slice(0, 7)}`, "releases.json"]);
  console.log(git(["log", "--oneline", "-2"]));
  console.log(`released ${version}; its artifacts: npm run artifacts -- --out <dir>`);
}

if (require.main === module) main();
