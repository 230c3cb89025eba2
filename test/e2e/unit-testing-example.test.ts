// examples/unit-testing as a user's infra repo has it: the packed tarball installed with npm next
// to mocha, ts-node and vitest from the registry, on the Node.js users run, and the example's own
// test scripts run there: the program's wiring of env/ftpUrl and the secrecy of every credential
// output under pulumi.runtime.setMocks (docs/unit-testing.md). No engine, no API.
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { nodeBinDir, repoRoot } from "../../scripts/toolchain";

let dir: string;
let env: NodeJS.ProcessEnv;

beforeAll(() => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "psu-unit-"));
  // --ignore-scripts: dist/ is built (pretest), and the pack hooks rewrite package.json, which
  // other test files packing at the same time must not see half done (scripts/consumer.ts does the same).
  const packed = JSON.parse(
    execFileSync("npm", ["pack", "--json", "--ignore-scripts", "--pack-destination", tmp], {
      cwd: repoRoot,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    }),
  )[0];
  dir = path.join(tmp, "infra");
  fs.cpSync(path.join(repoRoot, "examples", "unit-testing"), dir, {
    recursive: true,
    filter: (src) => !src.includes("node_modules"),
  });
  const pj = JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8"));
  // The example names the tarball `npm pack` writes at the repository's root; here it is in tmp.
  expect(pj.dependencies["pulumi-storage-user"]).toBe(`file:../../${packed.filename}`);
  pj.dependencies["pulumi-storage-user"] = `file:${path.join(tmp, packed.filename)}`;
  fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify(pj, null, 2));
  env = {
    ...process.env,
    PATH: [nodeBinDir("24"), process.env.PATH].join(path.delimiter),
    npm_config_loglevel: "error",
  };
  execFileSync("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline"], {
    cwd: dir,
    env,
    stdio: ["ignore", "pipe", "pipe"],
    timeout: 240_000,
  });
});
afterAll(() => {
  if (dir) fs.rmSync(path.dirname(dir), { recursive: true, force: true });
});

const run = (script: string) => {
  try {
    return {
      code: 0,
      output: execFileSync("npm", ["run", "--silent", script], {
        cwd: dir,
        env: { ...env, NO_COLOR: "1" },
        encoding: "utf8",
        stdio: ["ignore", "pipe", "pipe"],
      }),
    };
  } catch (err) {
    const e = err as { status?: number; stdout?: string; stderr?: string };
    return { code: e.status ?? 1, output: `${e.stdout}${e.stderr}` };
  }
};

test("the mocha test (Pulumi's guide: setMocks, then the program) passes: wiring and secrecy", () => {
  const r = run("test:mocha");
  expect(r.code, r.output).toBe(0);
  expect(r.output).toMatch(/3 passing/);
  expect(r.output).toContain("hands the application secrets only");
});

test("the vitest test passes", () => {
  const r = run("test:vitest");
  expect(r.code, r.output).toBe(0);
  expect(r.output).toMatch(/Tests\s+2 passed/);
});

test("the example's tests can fail: a StorageUser left to a mock that is not ours has no env", () => {
  // The user's own mocks alone (Pulumi's guide echoes the inputs): the wiring test must fail.
  const spec = path.join(dir, "test", "app.spec.ts");
  const original = fs.readFileSync(spec, "utf8");
  fs.writeFileSync(
    spec,
    original.replace(
      "setMocks(storageUserMocks(),",
      "setMocks({ newResource: (a) => ({ id: `${a.name}-id`, state: a.inputs }), call: (a) => a.inputs },",
    ),
  );
  try {
    const r = run("test:mocha");
    expect(r.code).not.toBe(0);
    expect(r.output).toMatch(/failing/);
  } finally {
    fs.writeFileSync(spec, original);
  }
});
