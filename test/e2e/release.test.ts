// `npm run release` (scripts/release.ts) in a clone of this repository, its committed files as the
// working tree has them: refused on a side branch, refused for a removed export the upgrade notes
// do not name, undone whole when a step after the checks fails, and on main a release with both
// tags; then the version module (scripts/version.ts) gives the release's version to its commit only.
import { execFileSync, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, expect, test } from "vitest";
import { buildVersion } from "../../scripts/version";
import { repoRoot } from "../../scripts/toolchain";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "psu-release-e2e-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
const clone = path.join(tmp, "clone");
const env = {
  ...process.env,
  GIT_AUTHOR_NAME: "release test",
  GIT_AUTHOR_EMAIL: "release@test.invalid",
  GIT_COMMITTER_NAME: "release test",
  GIT_COMMITTER_EMAIL: "release@test.invalid",
  NO_COLOR: "1",
};
const git = (...args: string[]) => execFileSync("git", args, { cwd: clone, env, encoding: "utf8" }).trim();
const npm = (...args: string[]) => {
  const r = spawnSync("npm", args, { cwd: clone, env, encoding: "utf8" });
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
};
/** What a failed release must leave as it was: the branch and its commit, the tree, the tags, the worktrees. */
const state = () => ({
  branch: git("branch", "--show-current"),
  head: git("rev-parse", "HEAD"),
  status: git("status", "--porcelain", "--untracked-files=all"),
  tags: git("tag", "--list"),
  worktrees: git("worktree", "list").split("\n").length,
});

test("a release: refused on a side branch, refused for an unnamed removed export, undone when a late step fails, then made on main with both tags", () => {
  // The clone holds the working tree's tracked files, committed, and this checkout's node_modules.
  execFileSync("git", ["clone", "--quiet", "--no-hardlinks", repoRoot, clone], { env });
  for (const file of execFileSync("git", ["ls-files", "-z"], { cwd: repoRoot, encoding: "utf8" }).split("\0")) {
    if (!file) continue;
    const from = path.join(repoRoot, file);
    if (!fs.existsSync(from)) fs.rmSync(path.join(clone, file), { force: true });
    else fs.cpSync(from, path.join(clone, file), { verbatimSymlinks: true });
  }
  git("checkout", "--quiet", "-B", "side");
  git("add", "--all");
  if (git("status", "--porcelain")) git("commit", "--quiet", "-m", "the working tree");
  fs.symlinkSync(path.join(repoRoot, "node_modules"), path.join(clone, "node_modules"));

  const onSide = state();
  const side = npm("run", "release", "--", "0.99.0");
  expect(side.status).toBe(1);
  expect(side.output).toContain("release: a release is cut on main; this is the branch side");
  expect(state()).toStrictEqual(onSide);

  // main, with its last release at the commit before: the surface is unchanged since.
  git("checkout", "--quiet", "-B", "main");
  const releases = JSON.parse(fs.readFileSync(path.join(clone, "releases.json"), "utf8")) as object;
  fs.writeFileSync(
    path.join(clone, "releases.json"),
    `${JSON.stringify({ ...releases, "0.98.0": { commit: git("rev-parse", "HEAD") } }, null, 2)}\n`,
  );
  // Just after a real release [Unreleased] is empty, and a release refuses that first: the clone's has a change.
  const changelog = path.join(clone, "CHANGELOG.md");
  const notes = fs.readFileSync(changelog, "utf8");
  fs.writeFileSync(
    changelog,
    notes.replace("## [Unreleased]\n", "## [Unreleased]\n\n### Changed\n- The test's release.\n"),
  );
  git("commit", "--quiet", "-am", "a release 0.98.0 at the commit before");
  const base = git("rev-parse", "HEAD");

  // ftpUrlOf no longer exported, its report rewritten and committed: the notes do not name it.
  const index = path.join(clone, "provider", "index.ts");
  fs.writeFileSync(index, fs.readFileSync(index, "utf8").replace("export { envOf, ftpUrlOf }", "export { envOf }"));
  const surface = npm("run", "surface", "--", "typescript");
  expect(surface.status, surface.output).toBe(0);
  git("commit", "--quiet", "-am", "drop ftpUrlOf");
  const unnamed = state();
  const removed = spawnSync(process.execPath, ["dist/scripts/release.js", "0.99.0"], {
    cwd: clone,
    env,
    encoding: "utf8",
  });
  expect(removed.status).toBe(1);
  expect(removed.stderr)
    .toContain(`the public surface changed since 0.98.0 in ways CHANGELOG.md's [Unreleased] "### Upgrade notes" do not name:
  pulumi-storage-user: ftpUrlOf: removed
`);
  expect(state()).toStrictEqual(unnamed);

  // A step after every check fails (the SDK generator): the release made aside is dropped, the clone unchanged.
  git("reset", "--quiet", "--hard", base);
  fs.writeFileSync(
    path.join(clone, "tools/sdkgen/generate.sh"),
    "#!/usr/bin/env bash\necho 'generator broken for the test' >&2\nexit 3\n",
  );
  git("commit", "--quiet", "-am", "a broken generator");
  const broken = state();
  const late = npm("run", "release", "--", "0.99.0");
  expect(late.status).toBe(1);
  expect(late.output).toContain("generator broken for the test");
  expect(late.output).toContain("release: nothing was changed");
  expect(state()).toStrictEqual(broken);

  git("reset", "--quiet", "--hard", base);
  const made = npm("run", "release", "--", "0.99.0");
  expect(made.status, made.output).toBe(0);
  const commit = git("rev-parse", "HEAD~1");
  expect([
    git("log", "--format=%s", "-2"),
    git("rev-parse", "HEAD~2"),
    git("rev-list", "-n", "1", "v0.99.0"),
    git("rev-list", "-n", "1", "sdk/go/v0.99.0"),
    git("tag", "--list", "*0.99.0"),
    (JSON.parse(fs.readFileSync(path.join(clone, "releases.json"), "utf8")) as Record<string, unknown>)["0.99.0"],
    (JSON.parse(fs.readFileSync(path.join(clone, "package.json"), "utf8")) as { version: string }).version,
    git("status", "--porcelain", "--untracked-files=all"),
    git("worktree", "list").split("\n").length,
  ]).toStrictEqual([
    `releases.json: 0.99.0 is ${commit.slice(0, 7)}\nRelease 0.99.0`,
    base,
    commit,
    commit,
    "sdk/go/v0.99.0\nv0.99.0",
    { commit },
    "0.99.0",
    "",
    1,
  ]);
  expect(fs.readFileSync(path.join(clone, "CHANGELOG.md"), "utf8")).toMatch(
    /^## \[Unreleased\]\n\n## \[0\.99\.0\] - \d{4}-\d\d-\d\d$/m,
  );

  // The version module: 0.99.0 at the release commit only; the commit after it builds as a pre-release of 0.99.1.
  const sha = git("rev-parse", "--short=12", "HEAD");
  expect(buildVersion(clone)).toMatchObject({ release: false, semver: `0.99.1-dev.1+${sha}` });
  // `npm run artifacts` there: every artifact names that pre-release, none 0.99.0.
  const out = path.join(tmp, "out");
  const artifacts = npm("run", "artifacts", "--", "--out", out);
  expect(artifacts.status, artifacts.output).toBe(0);
  const time = execFileSync("git", ["log", "-1", "--format=%cd", "--date=format-local:%Y%m%d%H%M%S"], {
    cwd: clone,
    env: { ...env, TZ: "UTC" },
    encoding: "utf8",
  }).trim();
  const [go, at] = [`v0.99.1-0.${time}-${sha}`, "go/github.com/pulumi-storage-user/pulumi-storage-user/sdk/go/@v/"];
  const [wheel, tgz, binary] = [
    `pulumi_storage_user-0.99.1.dev1+${sha}-py3-none-any.whl`,
    `pulumi-storage-user-${"0.99.1"}-dev.1+${sha}.tgz`, // spelt so `npm run release` leaves it be
    "pulumi-resource-storage-user-v0.99.1-dev.1-linux-amd64.tar.gz",
  ];
  const files = (fs.readdirSync(out, { recursive: true }) as string[]).filter((f) =>
    fs.statSync(path.join(out, f)).isFile(),
  );
  expect(files.sort()).toStrictEqual([
    "README.md",
    "SHA256SUMS",
    ...["list", `${go}.info`, `${go}.mod`, `${go}.zip`].map((f) => at + f),
    binary,
    tgz,
    wheel,
    `pulumi_storage_user-0.99.1.dev1+${sha}.tar.gz`,
    "storage-user.yaml",
  ]);
  const read = (cmd: string, ...args: string[]) => execFileSync(cmd, args, { cwd: out, encoding: "utf8" });
  const text = (file: string) => fs.readFileSync(path.join(out, file), "utf8");
  const dir = path.join(tmp, "binary");
  fs.mkdirSync(dir);
  read("tar", "-xzf", binary, "-C", dir);
  const bundle = fs.readFileSync(path.join(dir, "pulumi-resource-storage-user"));
  expect([
    (JSON.parse(read("tar", "-xzOf", tgz, "package/package.json")) as { version: string }).version,
    /^Version: (.*)$/m.exec(
      read("unzip", "-p", wheel, `pulumi_storage_user-0.99.1.dev1+${sha}.dist-info/METADATA`),
    )?.[1],
    (JSON.parse(text(`${at}${go}.info`)) as { Version: string }).Version,
    (JSON.parse(read("unzip", "-p", wheel, "pulumi_storage_user/pulumi-plugin.json")) as { version: string }).version,
    text("storage-user.yaml"),
    [bundle.includes('"0.99.1-dev.1"'), bundle.includes('"0.99.0"')],
    files.filter((f) => /(README\.md|SHA256SUMS|\.yaml|list|\.info)$/.test(f) && text(f).includes("0.99.0")),
  ]).toStrictEqual([
    `0.99.1-dev.1+${sha}`,
    `0.99.1.dev1+${sha}`,
    go,
    "0.99.1-dev.1",
    "packageDeclarationVersion: 1\nname: storage-user\nversion: 0.99.1-dev.1\n",
    [true, false],
    [],
  ]);
  git("checkout", "--quiet", "v0.99.0");
  expect(buildVersion(clone)).toStrictEqual({
    release: true,
    semver: "0.99.0",
    python: "0.99.0",
    go: "v0.99.0",
    commit,
    dirty: false,
  });
});
