// Services that drive Pulumi through the Automation API on the real CLI: many stacks in one Node.js
// process, each on its own service, failures typed (test/programs/automation/service.ts);
// docs/automation-api.md's snippet, verbatim, as an ES module and as CommonJS; examples/automation.
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { installConsumer } from "../../../scripts/consumer";
import { locateCli, nodeBinDir, repoRoot, userPath } from "../../../scripts/toolchain";
import { ApiServer, startApiServer } from "../../../server/api-server";
import { ok, onNewestCli, run } from "../../support/cli-project";
import { settingKeys } from "../../../provider/config";
import { errorMatching, errorSaid, unknown } from "../../support/said";
import { filesUnder, hits, secretsOf, withEncodings } from "../../support/secrets";
import { argvLoggingCli } from "../../support/tenants";

const tokens = ["automation-token-1-5be0c2d9", "automation-token-2-91f3aa07"];
let apis: ApiServer[];
let work: string;
let app: string;
/** docs/automation-api.md's one TypeScript block. */
const snippet = () => {
  const blocks = [
    ...fs.readFileSync(path.join(repoRoot, "docs/automation-api.md"), "utf8").matchAll(/^```ts\n([\s\S]*?)^```$/gm),
  ];
  expect(blocks).toHaveLength(1);
  return blocks[0][1];
};

beforeAll(async () => {
  apis = await Promise.all(tokens.map((token) => startApiServer({ token })));
  work = fs.mkdtempSync(path.join(os.tmpdir(), "psu-automation-"));
  app = path.join(work, "app");
  for (const d of ["app/guide", "backend", "home", "empty", "tmp", "guide-tmp"])
    fs.mkdirSync(path.join(work, d), { recursive: true });
  fs.copyFileSync(path.join(repoRoot, "examples/automation/tenants.ts"), path.join(app, "tenants.ts"));
  fs.copyFileSync(path.join(repoRoot, "test/programs/automation/service.ts"), path.join(app, "service.ts"));
  // The guide's snippet, and a developer's slip: the same with the token not marked secret.
  const plain = snippet().replace("{ value: token, secret: true }", "{ value: token, secret: false }");
  expect(plain).not.toBe(snippet());
  fs.writeFileSync(path.join(app, "guide", "tenants.ts"), snippet());
  fs.writeFileSync(path.join(app, "guide", "tenants.mts"), snippet());
  fs.writeFileSync(path.join(app, "guide", "plain.mts"), plain);
  // The same service as Pulumi's own docs show it: the config set with the stack's setAllConfig, no helper of this package.
  const bare = snippet()
    .replace("await setStorageConfig(stack, config);", "await stack.setAllConfig(config);")
    .replace(
      /import \{ checkStorageConfig, setStorageConfig, (storageUserFailures) \}/,
      "import { checkStorageConfig, $1 }",
    );
  expect(bare).toContain("await stack.setAllConfig(config);");
  expect(bare).not.toContain("setStorageConfig");
  fs.writeFileSync(path.join(app, "guide", "bare.mts"), bare);
  const runner = (load: string) =>
    `${load}\nconst [tenant, url, token] = process.argv.slice(2);\nprovision(tenant, url, token).then(\n  (env) => console.log(JSON.stringify({ ok: true, names: Object.keys(env).sort() })),\n  (err) => console.log(JSON.stringify({ ok: false, code: err.code, message: err.message })),\n);\n`;
  for (const [file, load] of [
    ["esm.mjs", 'import { provision } from "./tenants.mts";'],
    ["plain.mjs", 'import { provision } from "./plain.mts";'],
    ["bare.mjs", 'import { provision } from "./bare.mts";'],
    ["cjs.cjs", 'const { provision } = require("../dist/guide/tenants.js");'],
  ])
    fs.writeFileSync(path.join(app, "guide", file), runner(load));
  const tsconfig = JSON.parse(fs.readFileSync(path.join(repoRoot, "examples/automation/tsconfig.json"), "utf8"));
  const files = ["tenants.ts", "service.ts", "guide/tenants.ts"];
  fs.writeFileSync(path.join(app, "tsconfig.json"), JSON.stringify({ ...tsconfig, files }));
  fs.writeFileSync(path.join(app, "package.json"), JSON.stringify({ name: "svc-app", private: true }));
  const consumer = installConsumer();
  fs.symlinkSync(path.join(consumer, "node_modules"), path.join(app, "node_modules"));
  execFileSync(process.execPath, [path.join(consumer, "node_modules/typescript/bin/tsc"), "-p", app]);
});
afterAll(async () => {
  await Promise.all(apis.map((a) => a.close()));
  fs.rmSync(work, { recursive: true, force: true });
});

/** Runs a script of the app (one Node.js process) from `cwd` as a service runs: the CLI and Node 24 on PATH, a file:// backend. */
async function service(cwd: string, script: string, args: string[], tmp = "tmp") {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    // Each pulumi command line logged (argv/argv.log), searched for the tokens below.
    PATH: [argvLoggingCli(path.join(work, "argv"), locateCli()), userPath()].join(path.delimiter),
    PULUMI_BACKEND_URL: `file://${path.join(work, "backend")}`,
    PULUMI_HOME: path.join(work, "home"),
    PULUMI_CONFIG_PASSPHRASE: "automation-passphrase",
    PULUMI_SKIP_UPDATE_CHECK: "true",
    PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
    STORAGE_API_URL: apis[0].url,
    STORAGE_ACCESS_TOKEN: tokens[0],
    // LocalWorkspace makes a work directory per inline stack in the temp dir.
    TMPDIR: path.join(work, tmp),
  };
  const r = await run(path.join(nodeBinDir(), "node"), [path.join(app, script), ...args], { cwd, env });
  // The JSON lines it printed.
  const steps: Array<Record<string, any>> = r.output
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l));
  return { ...r, steps };
}
const createsOf = (api: ApiServer, userName: string) =>
  api.requests.filter((r) => r.path === "/storage/users" && JSON.parse(r.body).UserName === userName).length;

let r: Awaited<ReturnType<typeof service>>;
/** What a caller reads of a config refused as not secret. */
const notSecret = (connection?: string) => ({
  ok: false,
  code: "CONFIG_NOT_SECRET",
  message: expect.stringMatching(
    errorMatching("CONFIG_NOT_SECRET", { ...settingKeys("accessToken", connection), where: unknown, inline: true }),
  ),
});
describe("one process, many stacks", () => {
  const step = (name: string) =>
    r.steps.find((s) => s.step === name) ?? expect.fail(`no step ${name} in:\n${r.output}`);
  beforeAll(async () => void (r = await service(app, "dist/service.js", [apis[0].url, apis[1].url, ...tokens])));

  test("the process ends cleanly; a plain token after a secret one is refused for its own stack: CONFIG_NOT_SECRET, nothing created", () => {
    expect(r.code, r.output).toBe(0);
    expect(step("secret-token").ok, r.output).toBe(true);
    expect(step("plain-token-check")).toMatchObject(notSecret());
    expect(step("named-plain-check")).toMatchObject(notSecret("eu"));
    expect(step("named-secret-check")).toEqual({ step: "named-secret-check", ok: true });
    const plain = step("plain-token");
    expect(plain.ok).toBe(false);
    expect(plain.failures.map((f: any) => f.code)).toEqual(["CONFIG_NOT_SECRET"]);
    expect(plain.fromText.map((f: any) => f.code)).toEqual(["CONFIG_NOT_SECRET"]);
    expect(plain.failures[0].message).toContain(
      'setStorageConfig(stack, { "storage:accessToken": { value: token, secret: true } })',
    );
    expect(apis[0].requests.filter((q) => /^(plain|checked)-/.test(JSON.parse(q.body).UserName))).toEqual([]);
  });

  test("two stacks at once, each on its own API server: each user created once, on its own server; the same one-line provider in every stack", () => {
    const [a, b] = [step("concurrent-a"), step("concurrent-b")];
    expect([a.ok, b.ok, a.s3Secret, b.s3Secret], r.output).toEqual([true, true, true, true]);
    const aName = apis[0].users.find((u) => u.Name.startsWith("a-"))!.Name;
    const bName = apis[1].users.find((u) => u.Name.startsWith("b-"))!.Name;
    const [one, two] = apis;
    const counts = [createsOf(one, aName), createsOf(two, bName), createsOf(two, aName), createsOf(one, bName)];
    expect(counts).toEqual([1, 1, 0, 0]);
    expect(apis[0].users.find((u) => u.Name === aName)!.Id).toBe(a.userId);
    expect(apis[1].users.find((u) => u.Name === bName)!.Id).toBe(b.userId);
    // Its per-process cache is harmless: the serialized provider is the same in every stack of the process.
    const providers = ["secret-token", "concurrent-a", "concurrent-b"].map((name) => step(name).provider);
    expect(providers[0]).toContain('require("pulumi-storage-user/dist/provider/runtime.js")');
    expect(new Set(providers).size).toBe(1);
  });

  test("a refused create: the caller reads the code, the resource's URN and the userName", () => {
    const taken = step("name-taken");
    expect([taken.ok, taken.errorName]).toEqual([false, "CommandError"]);
    expect(taken.failures).toEqual([
      {
        code: "NAME_TAKEN",
        message: expect.stringMatching(/^\[NAME_TAKEN\] the storage API already has a user named 'first-/),
        urn: expect.stringMatching(
          /^urn:pulumi:taken-[a-z0-9]+::svc::pulumi-nodejs:dynamic\/storage:StorageUser::storage$/,
        ),
        resourceName: "storage",
        userName: step("destroy-first").warnings[0]?.userName,
      },
    ]);
    // Without the events, the error's text gives the code and the resource name.
    expect(taken.fromText).toEqual([
      { code: "NAME_TAKEN", message: taken.failures[0].message, resourceName: "storage" },
    ]);
  });

  test("destroy: each user left on the service arrives as a warning event with its URN", () => {
    for (const stack of ["first", "a", "b"]) {
      const d = step(`destroy-${stack}`);
      expect(d.failures).toEqual([]);
      expect(d.warnings).toEqual([
        expect.objectContaining({
          code: "USER_LEFT_STACK",
          urn: expect.stringMatching(
            new RegExp(`^urn:pulumi:${stack}-[a-z0-9]+::svc::pulumi-nodejs:dynamic/storage:StorageUser::storage$`),
          ),
          resourceName: "storage",
          userName: expect.stringMatching(new RegExp(`^${stack}-`)),
          message: expect.stringMatching(
            /^\[USER_LEFT_STACK\] StorageUser '[^']+' \(id \d+, on http:\/\/127\.0\.0\.1:\d+\/\)/,
          ),
        }),
      ]);
    }
  });
});

// The guide's and the example's own logic; their engine path (an inline program's up and destroy)
// runs on the newest CLI above.
describe.skipIf(onNewestCli)("docs/automation-api.md's snippet and examples/automation", () => {
  const guide = async (script: string, tenant: string, cwd = app) => {
    const r = await service(cwd, `guide/${script}`, [tenant, apis[0].url, tokens[0]], "guide-tmp");
    return { ...(r.steps[0] ?? { ok: false, message: r.output }), output: r.output };
  };

  test("the snippet as an ES module creates the tenant's user; run again it sends nothing; compiled to CommonJS the same; no workspace left", async () => {
    expect(await guide("esm.mjs", "esm")).toMatchObject({
      ok: true,
      names: expect.arrayContaining(["AWS_ACCESS_KEY_ID", "OS_PASSWORD", "FTP_PASSWORD"]),
    });
    // The second run's workspace is new: the stack and its secrets come from the backend alone.
    expect(await guide("esm.mjs", "esm")).toMatchObject({ ok: true });
    expect(await guide("cjs.cjs", "cjs")).toMatchObject({ ok: true });
    expect([createsOf(apis[0], "tenant-esm"), createsOf(apis[0], "tenant-cjs")]).toEqual([1, 1]);
    expect(fs.readdirSync(path.join(work, "guide-tmp"))).toEqual([]);
  });

  test("with the token not marked secret: [CONFIG_NOT_SECRET] before anything is written; from a directory without node_modules: [PLUGIN_CANNOT_START] before anything runs; nothing created", async () => {
    const requests = apis[0].requests.length;
    expect(await guide("plain.mjs", "plain")).toMatchObject(notSecret());
    expect(fs.existsSync(path.join(work, "backend", ".pulumi", "stacks", "tenants", "plain.json"))).toBe(false);
    // The snippet's project main is process.cwd(), where the modules must resolve: setStorageConfig says so.
    const empty = await guide("esm.mjs", "empty", path.join(work, "empty"));
    expect(empty).toMatchObject({ ok: false });
    const module = "@pulumi/pulumi/cmd/dynamic-provider";
    expect(empty.output).toContain(errorSaid("PLUGIN_CANNOT_START", { module, dir: path.join(work, "empty") }));
    expect(apis[0].requests.length).toBe(requests);
    expect(fs.readdirSync(path.join(work, "guide-tmp"))).toEqual([]);
  });

  // docs/automation-api.md "Where the plugin starts": with none of this package's helpers, the first StorageUser checks
  // the directory the engine starts the plugin in, the inline run's pwd (the project's main), before it registers.
  test("the snippet with the stack's own setAllConfig instead of setStorageConfig, from a directory without node_modules: [PLUGIN_CANNOT_START] from the program, nothing created", async () => {
    const requests = apis[0].requests.length;
    const token = "bare-service-token-3c9d"; // not a token of the servers: never sent, and not in the search below
    const r = await service(path.join(work, "empty"), "guide/bare.mjs", ["bare", apis[0].url, token], "guide-tmp");
    const said = errorSaid("PLUGIN_CANNOT_START", {
      module: "@pulumi/pulumi/cmd/dynamic-provider",
      dir: path.join(work, "empty"),
    });
    expect(r.steps).toStrictEqual([{ ok: false, message: expect.stringContaining(said) }]);
    // The snippet's own line for each failure in the run's events (storageUserFailures: code, urn, userName, message).
    expect(r.output).toContain(`PLUGIN_CANNOT_START undefined undefined ${said}\n`);
    expect(r.output).not.toContain("Cannot find module");
    expect(apis[0].requests.length).toBe(requests);
    expect(fs.readdirSync(path.join(work, "guide-tmp"))).toEqual([]);
  });

  test("examples/automation from /: a tenant's stack is created, its credentials read as secrets, and removed with a warning", async () => {
    const tenant = `acme${Date.now().toString(36)}`;
    const up = ok(await service("/", "dist/tenants.js", ["up", tenant]));
    const user = apis[0].users.find((u) => u.Name === `tenant-${tenant}`)!;
    expect(up.output).toContain(`tenant ${tenant}: storage user ${user.Id}`);
    const creds = ok(await service("/", "dist/tenants.js", ["credentials", tenant]));
    expect(creds.output).toContain("AWS_SECRET_ACCESS_KEY=[secret]");
    const removed = ok(await service("/", "dist/tenants.js", ["remove", tenant]));
    expect(removed.output).toContain(
      `warning USER_LEFT_STACK (urn:pulumi:${tenant}::tenants::pulumi-nodejs:dynamic/storage:StorageUser::storage)`,
    );
    expect(createsOf(apis[0], `tenant-${tenant}`)).toBe(1);
    const said = up.output + creds.output + removed.output;
    expect(hits([["example output", said]], withEncodings(secretsOf(user)))).toEqual([]);
  });
});

test("the tokens and every credential issued: nowhere in the backend, PULUMI_HOME, a temp directory, the service's output or a pulumi command line", () => {
  const issued = apis.flatMap((a) => a.users.flatMap(secretsOf));
  const needles = withEncodings([["token 1", tokens[0]], ["token 2", tokens[1]], ...issued]);
  const places = ["backend", "home", "guide-tmp"].flatMap((d) => filesUnder(path.join(work, d)));
  const historyFiles = places.filter(([p]) => p.includes(`${path.sep}history${path.sep}`));
  expect(historyFiles.length, "no history to search").toBeGreaterThan(0);
  expect(apis[0].users.length + apis[1].users.length).toBeGreaterThanOrEqual(3);
  // The CLI's one exception: it records each update's config in the stack's history before the
  // program runs, plain values in plain text, so the `up` the program refused left the plain token
  // there (docs/automation-api.md: checkStackConfig refuses it before any operation, as "checked-" shows).
  // The command lines: setStorageConfig gives each secret to the CLI on standard input; only the plain tokens the
  // service sets on purpose with setAllConfig (refused later, or by checkStackConfig) stand in a command line.
  const argv = fs.readFileSync(path.join(work, "argv", "argv.log"), "utf8").split("\n");
  expect(argv.filter((l) => l.includes("config set --secret --stack ")).length).toBeGreaterThan(3);
  const deliberate = (l: string) =>
    / --plaintext storage:accessToken=|^config set --path storage:connections\.eu\.accessToken --stack \S+ --plaintext /.test(
      l,
    );
  expect(argv.filter(deliberate).length).toBeGreaterThan(0);
  const commandLines: [string, string] = ["the pulumi command lines", argv.filter((l) => !deliberate(l)).join("\n")];
  const found = hits([...places, ["service output", r.output], commandLines], needles);
  const history = /^token 1 in .*[\\/]history[\\/]svc[\\/]plain-[a-z0-9]+[\\/]plain-[a-z0-9-]+\.history\.json$/;
  expect(found.filter((f) => !history.test(f))).toEqual([]);
  expect(found.some((f) => f.includes(`${path.sep}checked-`))).toBe(false);
});
