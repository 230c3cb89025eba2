import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { expect, test } from "vitest";
import { staleSpellings } from "../../scripts/release";
import { packageVersion, repoRoot } from "../../scripts/toolchain";

// releases.json: each release's commit, and where CHANGELOG.md did not exist yet, the commit that first wrote its section.
const releases = JSON.parse(fs.readFileSync(path.join(repoRoot, "releases.json"), "utf8")) as Record<
  string,
  { commit: string; changelog?: string }
>;

/** Each `## ` section of a CHANGELOG.md by its version, heading included, up to the next `## ` or the link definitions. */
function sections(text: string): Map<string, string[]> {
  const found = new Map<string, string[]>();
  let current: string[] | undefined;
  for (const line of text.split("\n")) {
    if (line.startsWith("## ")) found.set(/^## \[([^\]]+)\]/.exec(line)?.[1] ?? line, (current = []));
    else if (/^\[[^\]]+\]: /.test(line)) current = undefined;
    current?.push(line);
  }
  return found;
}
const today = sections(fs.readFileSync(path.join(repoRoot, "CHANGELOG.md"), "utf8"));

test.each(Object.entries(releases))("CHANGELOG.md's %s section holds its released text, in order", (version, at) => {
  const text = execFileSync("git", ["show", `${at.changelog ?? at.commit}:CHANGELOG.md`], { cwd: repoRoot });
  const released = sections(text.toString()).get(version)!;
  let next = 0;
  const lost = released.filter((line) => {
    const found = today.get(version)!.indexOf(line, next);
    if (found >= 0) next = found + 1;
    return found < 0;
  });
  expect([released.length > 2, lost]).toStrictEqual([true, []]);
});

test("the version is the last release's or a pre-release, whose section is the newest; every spelling agrees", () => {
  const last = Object.keys(releases).at(-1)!;
  expect([...today.keys()].slice(0, 2)).toStrictEqual(["Unreleased", last]);
  expect(packageVersion === last || packageVersion.includes("-")).toBe(true);
  expect(staleSpellings(packageVersion)).toStrictEqual([]);
});
