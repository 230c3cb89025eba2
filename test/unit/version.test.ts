// scripts/version.ts: only the commit that releases a version builds as it; every other commit builds
// as a pre-release of the next patch version naming the commit. Proven in a throwaway repository
// laid out as this one is (package.json, releases.json, the release's tag).
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, expect, test } from "vitest";
import { buildVersion, compareVersions } from "../../scripts/version";

const repo = fs.mkdtempSync(path.join(os.tmpdir(), "psu-version-"));
afterAll(() => fs.rmSync(repo, { recursive: true, force: true }));
const env = {
  ...process.env,
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_AUTHOR_NAME: "t",
  GIT_AUTHOR_EMAIL: "t@t",
  GIT_COMMITTER_NAME: "t",
  GIT_COMMITTER_EMAIL: "t@t",
};
const git = (...args: string[]) => execFileSync("git", args, { cwd: repo, env, encoding: "utf8" }).trim();
const write = (file: string, value: unknown) => fs.writeFileSync(path.join(repo, file), `${JSON.stringify(value)}\n`);
function commit(message: string, date: string): string {
  git("add", "--all");
  execFileSync("git", ["commit", "--quiet", "-m", message], {
    cwd: repo,
    env: { ...env, GIT_COMMITTER_DATE: date, GIT_AUTHOR_DATE: date },
  });
  return git("rev-parse", "HEAD");
}

test("the release commit builds as its version; the commits after it, and a changed tree, as distinct pre-releases of the next", () => {
  git("init", "--quiet", "--initial-branch=main");
  write("package.json", { name: "p", version: "0.5.0" });
  write("releases.json", { "0.5.0": { commit: "0".repeat(40) } });
  commit("before", "2026-11-27T10:00:00Z");
  write("package.json", { name: "p", version: "0.6.0" });
  const release = commit("Release 0.6.0", "2026-11-28T02:06:08Z");
  git("tag", "--annotate", "-m", "Release 0.6.0", "v0.6.0", release);
  expect(buildVersion(repo)).toStrictEqual({
    release: true,
    semver: "0.6.0",
    python: "0.6.0",
    go: "v0.6.0",
    commit: release,
    dirty: false,
  });

  // The commit recording the release, and one more: never 0.6.0.
  write("releases.json", { "0.5.0": { commit: "0".repeat(40) }, "0.6.0": { commit: release } });
  const recorded = commit("releases.json: 0.6.0", "2026-11-28T02:07:00Z");
  fs.writeFileSync(path.join(repo, "a.txt"), "a\n");
  const next = commit("a change", "2026-11-28T13:05:09Z");
  const sha = next.slice(0, 12);
  expect(buildVersion(repo)).toStrictEqual({
    release: false,
    semver: `0.6.1-dev.2+${sha}`,
    python: `0.6.1.dev2+${sha}`,
    go: `v0.6.1-0.20261128130509-${sha}`,
    commit: next,
    dirty: false,
  });
  fs.writeFileSync(path.join(repo, "a.txt"), "b\n");
  expect(buildVersion(repo)).toMatchObject({
    semver: `0.6.1-dev.2+${sha}.dirty`,
    go: `v0.6.1-dev.2.dirty.g${sha}`,
    dirty: true,
  });
  git("checkout", "--quiet", "--", "a.txt");

  // Another commit at the same distance from the release, on another branch: another version.
  git("checkout", "--quiet", "-b", "side", recorded);
  fs.writeFileSync(path.join(repo, "b.txt"), "b\n");
  const side = commit("another change", "2026-11-28T13:05:09Z");
  expect(buildVersion(repo).semver).toBe(`0.6.1-dev.2+${side.slice(0, 12)}`);
  expect(side).not.toBe(next);

  // The release commit with a changed tracked file is no release build; without its tag and not
  // yet in releases.json (the commit itself cannot record it), neither.
  git("checkout", "--quiet", release);
  fs.writeFileSync(path.join(repo, "package.json"), `${JSON.stringify({ name: "p", version: "0.6.0", x: 1 })}\n`);
  expect(buildVersion(repo)).toMatchObject({ release: false, semver: `0.6.1-dev.0+${release.slice(0, 12)}.dirty` });
  git("checkout", "--quiet", "--", "package.json");
  git("tag", "--delete", "v0.6.0");
  expect(buildVersion(repo)).toMatchObject({ release: false, semver: `0.6.1-dev.2+${release.slice(0, 12)}` });
});

test("versions compare by SemVer precedence: a pre-release below its release, numeric identifiers as numbers", () => {
  const sorted = ["0.10.0", "0.6.1-dev.10+b", "0.6.0", "0.6.1", "0.6.1-dev.2+a", "0.6.1-dev", "1.0.0-rc.1"].sort(
    compareVersions,
  );
  expect(sorted).toStrictEqual([
    "0.6.0",
    "0.6.1-dev",
    "0.6.1-dev.2+a",
    "0.6.1-dev.10+b",
    "0.6.1",
    "0.10.0",
    "1.0.0-rc.1",
  ]);
});
