// examples/unit-testing as a user's infra repo has it: the packed tarball installed with npm next to
// mocha, ts-node and vitest from the registry, on the Node.js users run, and the example's own test
// scripts run there: the program's wiring of env and ftpUrl, and the secrecy of every credential
// output, under pulumi.runtime.setMocks (docs/unit-testing.md). No engine, no API.
import { execFileSync, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { packedTarball } from "../support/cli-project";
import { nodeBinDir, repoRoot } from "../../scripts/toolchain";

let dir: string;
const env = {
  ...process.env,
  PATH: [nodeBinDir("24"), process.env.PATH].join(path.delimiter),
  npm_config_loglevel: "error",
  NO_COLOR: "1",
};
beforeAll(() => {
  dir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "psu-unit-")), "infra");
  fs.cpSync(path.join(repoRoot, "examples", "unit-testing"), dir, {
    recursive: true,
    filter: (src) => !src.includes("node_modules"),
  });
  // The example names the tarball `npm pack` writes at the repository's root; the test run's is in its install.
  const pj = JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8"));
  expect(pj.dependencies["pulumi-storage-user"]).toMatch(/^file:\.\.\/\.\.\/pulumi-storage-user-[\d.]+\.tgz$/);
  pj.dependencies["pulumi-storage-user"] = `file:${packedTarball()}`;
  fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify(pj, null, 2));
  execFileSync("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline"], { cwd: dir, env, stdio: "ignore" });
});
afterAll(() => dir && fs.rmSync(path.dirname(dir), { recursive: true, force: true }));

const run = (script: string) => {
  const r = spawnSync("npm", ["run", "--silent", script], { cwd: dir, env, encoding: "utf8" });
  return { code: r.status, output: r.stdout + r.stderr };
};

test("the mocha test (Pulumi's guide: setMocks, then the program) and the vitest test pass: wiring and secrecy", () => {
  const mocha = run("test:mocha");
  expect(mocha.code, mocha.output).toBe(0);
  expect(mocha.output).toMatch(/3 passing/);
  expect(mocha.output).toContain("hands the application secrets only");
  const vitest = run("test:vitest");
  expect(vitest.code, vitest.output).toBe(0);
  expect(vitest.output).toMatch(/Tests\s+2 passed/);
});

test("the example's tests can fail: a StorageUser left to a mock that is not ours has no env", () => {
  // The user's own mocks alone (Pulumi's guide echoes the inputs): the wiring test must fail.
  const spec = path.join(dir, "test", "app.spec.ts");
  const original = fs.readFileSync(spec, "utf8");
  const echo = "setMocks({ newResource: (a) => ({ id: `${a.name}-id`, state: a.inputs }), call: (a) => a.inputs },";
  fs.writeFileSync(spec, original.replace("setMocks(storageUserMocks(),", echo));
  try {
    const r = run("test:mocha");
    expect(r.code).not.toBe(0);
    expect(r.output).toMatch(/failing/);
  } finally {
    fs.writeFileSync(spec, original);
  }
});
