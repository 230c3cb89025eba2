// The packed package holds what its README links to: the guides under docs/ and the changelog
// (a README read in node_modules or on a registry page otherwise points at nothing), and no
// development file; the build that every git install runs compiles nothing else.
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { expect, test } from "vitest";
import { repoRoot } from "../../scripts/toolchain";

test("every file the README links to inside the repository's docs/ or CHANGELOG.md is in the tarball", () => {
  // --ignore-scripts: the list only, no prepack build (dist/ is built by `npm test`'s pretest).
  const args = ["pack", "--dry-run", "--json", "--ignore-scripts"];
  const npm = execFileSync("npm", args, { cwd: repoRoot, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });
  const [packed] = JSON.parse(npm);
  const files = new Set<string>(packed.files.map((f: { path: string }) => f.path));
  const readme = fs.readFileSync(path.join(repoRoot, "README.md"), "utf8");
  const linked = [...readme.matchAll(/\]\(((?:docs\/[^)#]+\.md)|CHANGELOG\.md)(?:#[^)]*)?\)/g)].map((m) => m[1]);
  expect(linked.length).toBeGreaterThan(10);
  for (const f of linked) {
    expect(fs.existsSync(path.join(repoRoot, f)), `${f} is linked but missing`).toBe(true);
    expect(files.has(f), `${f} is linked from README but not packed`).toBe(true);
  }
  for (const f of files)
    expect(f, "a development file in the package").not.toMatch(/^(test|scripts|server|tools|bench|examples)\//);
});

test("prepare, which every git install runs, compiles only what the package ships: provider/ and cli/", () => {
  // The script itself, listing what it would compile.
  const listed = execFileSync("npm", ["run", "-s", "prepare", "--", "--listFilesOnly"], {
    cwd: repoRoot,
    encoding: "utf8",
  });
  const compiled = listed
    .split("\n")
    .filter((f) => f.startsWith("/") && !f.includes(`${path.sep}node_modules${path.sep}`))
    .map((f) => path.relative(repoRoot, f));
  expect(compiled).toContain(path.join("provider", "index.ts"));
  expect(compiled.filter((f) => !/^(provider|cli)[\\/]/.test(f))).toEqual([]);
});
