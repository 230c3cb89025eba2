// docs/automation-api.md's snippet, as a service runs it: copied out of the guide verbatim, run as
// an ES module by Node 24's type stripping and compiled to CommonJS by tsc, against the packed
// package and the real CLI. It checks the config before anything is written, so a plain token
// never reaches disk, and it leaves no workspace behind.
import { execFileSync, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, test } from "vitest";
import { installConsumer } from "../../scripts/consumer";
import { nodeBinDir, repoRoot, userPath } from "../../scripts/toolchain";
import { ApiServer, startApiServer } from "../../server/api-server";
import { filesUnder, hits, secretsOf, withEncodings } from "../support/secrets";

const token = "automation-guide-token-3e9b71c2";
let api: ApiServer;
let work: string;
let app: string;

/** The guide's one TypeScript block. */
const snippet = (() => {
  const text = fs.readFileSync(path.join(repoRoot, "docs/automation-api.md"), "utf8");
  const blocks = [...text.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((m) => m[1]);
  expect(blocks).toHaveLength(1);
  return blocks[0];
})();

beforeAll(async () => {
  api = await startApiServer({ token });
  work = fs.mkdtempSync(path.join(os.tmpdir(), "psu-guide-"));
  app = path.join(work, "app");
  for (const d of ["app", "backend", "home", "tmp"]) fs.mkdirSync(path.join(work, d));
  const consumer = installConsumer();
  fs.symlinkSync(path.join(consumer, "node_modules"), path.join(app, "node_modules"));
  fs.writeFileSync(path.join(app, "package.json"), JSON.stringify({ name: "guide-app", private: true }));
  // A developer's slip, for the refusal: the same snippet with the token not marked secret.
  const plain = snippet.replace("{ value: token, secret: true }", "{ value: token, secret: false }");
  expect(plain).not.toBe(snippet);
  fs.writeFileSync(path.join(app, "tenants.mts"), snippet);
  fs.writeFileSync(path.join(app, "plain.mts"), plain);
  fs.writeFileSync(path.join(app, "tenants.ts"), snippet);
  const runner = (load: string) => `${load}
const [tenant, url, token] = process.argv.slice(2);
provision(tenant, url, token).then(
  (env) => console.log(JSON.stringify({ ok: true, names: Object.keys(env).sort() })),
  (err) => console.log(JSON.stringify({ ok: false, code: err.code, message: err.message })),
);
`;
  fs.writeFileSync(path.join(app, "esm.mjs"), runner('import { provision } from "./tenants.mts";'));
  fs.writeFileSync(path.join(app, "plain.mjs"), runner('import { provision } from "./plain.mts";'));
  fs.writeFileSync(path.join(app, "cjs.cjs"), runner('const { provision } = require("./cjs/tenants.js");'));
  const tsc = path.join(consumer, "node_modules/typescript/bin/tsc");
  execFileSync(
    path.join(nodeBinDir(), "node"),
    [
      tsc,
      "--module",
      "commonjs",
      "--target",
      "es2022",
      "--strict",
      "--esModuleInterop",
      "--skipLibCheck",
      "--outDir",
      path.join(app, "cjs"),
      path.join(app, "tenants.ts"),
    ],
    {
      cwd: app,
      stdio: "inherit",
    },
  );
});

afterAll(async () => {
  await api.close();
  fs.rmSync(work, { recursive: true, force: true });
});

function run(script: string, tenant: string): Promise<{ result: Record<string, any>; output: string }> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PATH: userPath(undefined, [], inject("cliDir")),
    PULUMI_BACKEND_URL: `file://${path.join(work, "backend")}`,
    PULUMI_HOME: path.join(work, "home"),
    PULUMI_CONFIG_PASSPHRASE: "guide-passphrase",
    PULUMI_SKIP_UPDATE_CHECK: "true",
    PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
    TMPDIR: path.join(work, "tmp"),
  };
  const child = spawn(path.join(nodeBinDir(), "node"), [script, tenant, api.url, token], {
    cwd: app,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (d) => (output += d));
  child.stderr.on("data", (d) => (output += d));
  return new Promise((resolve) =>
    child.on("close", () => {
      const line = output.split("\n").find((l) => l.startsWith("{"));
      resolve({ result: line ? JSON.parse(line) : { ok: false, message: output }, output });
    }),
  );
}

const createsOf = (userName: string) =>
  api.requests.filter((r) => r.path === "/storage/users" && JSON.parse(r.body).UserName === userName).length;

describe("docs/automation-api.md's snippet", () => {
  test("as an ES module: creates the tenant's user; run again, sends nothing; leaves no workspace", async () => {
    const first = await run("esm.mjs", "esm");
    expect(first.result, first.output).toMatchObject({
      ok: true,
      names: expect.arrayContaining(["AWS_ACCESS_KEY_ID", "OS_PASSWORD", "FTP_PASSWORD"]),
    });
    // The second run's workspace is new: the stack and its secrets come from the backend alone.
    const second = await run("esm.mjs", "esm");
    expect(second.result, second.output).toMatchObject({ ok: true });
    expect(createsOf("tenant-esm")).toBe(1);
    expect(fs.readdirSync(path.join(work, "tmp"))).toEqual([]);
  });

  test("compiled to CommonJS: the same", async () => {
    const r = await run("cjs.cjs", "cjs");
    expect(r.result, r.output).toMatchObject({ ok: true });
    expect(createsOf("tenant-cjs")).toBe(1);
    expect(fs.readdirSync(path.join(work, "tmp"))).toEqual([]);
  });

  test("with the token not marked secret: [CONFIG_NOT_SECRET] before anything is written, nothing created", async () => {
    const before = api.requests.length;
    const r = await run("plain.mjs", "plain");
    expect(r.result).toMatchObject({
      ok: false,
      code: "CONFIG_NOT_SECRET",
      message: expect.stringContaining("storage:accessToken is set in plain text"),
    });
    expect(api.requests.length).toBe(before);
    expect(fs.readdirSync(path.join(work, "tmp"))).toEqual([]);
    expect(fs.existsSync(path.join(work, "backend", ".pulumi", "stacks", "tenants", "plain.json"))).toBe(false);
  });

  test("the token and every issued credential: nowhere on disk (backend, PULUMI_HOME, temp) or in the output", async () => {
    expect(api.users.length).toBe(2);
    const needles = withEncodings([["token", token], ...api.users.flatMap(secretsOf)]);
    const places = [
      ...filesUnder(path.join(work, "backend")),
      ...filesUnder(path.join(work, "home")),
      ...filesUnder(path.join(work, "tmp")),
    ];
    expect(
      places.some(([p]) => p.includes(`${path.sep}history${path.sep}`)),
      "no history to search",
    ).toBe(true);
    expect(hits(places, needles)).toEqual([]);
  });
});
