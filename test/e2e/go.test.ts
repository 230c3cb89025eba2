// Go: examples/go, a tenant-onboarding service on the Automation API (inline programs: no Go
// language host) on the generated SDK (sdks.test.ts), built and run as its README says with the
// plain CLI v3.274.1 and the packed package's executable plugin, settings from each stack's config only.
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { ApiServer, startApiServer } from "../../server/api-server";
import { builtCli, nodeBinDir, pins, repoRoot, packageVersion } from "../../scripts/toolchain";
import { filesUnder, hits, withEncodings } from "../support/secrets";
import { argvLoggingCli, expectTenantsRun } from "../support/tenants";
import { ok, packedTarball, run, shBlocks } from "../support/cli-project";

const token = "go-example-token-" + Math.random().toString(36).slice(2, 12);
let api: ApiServer;
let work: string;
let env: NodeJS.ProcessEnv;
/** The plain CLI v3.274.1 (`pulumi` alone, no language host beside it), each command line it runs logged. */
const cli = () => path.join(work, "cli");

beforeAll(async () => {
  api = await startApiServer({ token });
  work = fs.mkdtempSync(path.join(os.tmpdir(), "go-example-"));
  env = {
    ...process.env,
    PATH: [argvLoggingCli(cli(), builtCli(pins.cliNewest)), nodeBinDir(), process.env.PATH].join(path.delimiter),
    PULUMI_HOME: path.join(work, "home"),
    PULUMI_CONFIG_PASSPHRASE: "go-example-passphrase",
    PULUMI_SKIP_UPDATE_CHECK: "true",
    PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
    STORAGE_API_URL: api.url,
    STORAGE_USER_PKG: packedTarball(),
  };
  for (const k of ["STORAGE_ACCESS_TOKEN", "PULUMI_BACKEND_URL", "STORAGE_USER_PLUGIN_DIR", "TENANTS_WORK_DIR"])
    delete env[k];
});
afterAll(async () => {
  await api?.close();
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

// Examples/go, as its README says.
const example = () => path.join(work, "examples", "go");
const blocks = () => shBlocks("examples/go/README.md");
/** Runs a script as a user's shell would. */
const sh = (script: string, extra: Record<string, string> = {}) =>
  run("bash", ["-euo", "pipefail", "-c", script], { cwd: work, env: { ...env, ...extra } });

test("the build, install and preview run as written with the plain CLI and no language host, without a token, calling no API", async () => {
  // The example and the SDK its go.mod replaces, laid out as in a clone.
  fs.cpSync(path.join(repoRoot, "examples", "go"), example(), { recursive: true });
  fs.cpSync(path.join(repoRoot, "sdk", "go"), path.join(work, "sdk", "go"), { recursive: true });
  expect(execFileSync("pulumi", ["version"], { env, encoding: "utf8" }).trim()).toBe("v3.274.1");
  const dirs = env.PATH!.split(path.delimiter).filter((d) => fs.existsSync(d));
  expect(dirs.flatMap((d) => fs.readdirSync(d).filter((f) => f.startsWith("pulumi-language-")))).toEqual([]);
  const r = ok(await sh(blocks()[0]));
  expect(r.output).toMatch(/\+\s+storage-user:index:StorageUser storage create/);
  expect(api.requests).toHaveLength(0);
});

test("onboard, again, rotate, offboard: one user per tenant, envs handed over, 0 requests when nothing changes, users left named, no secret kept in clear", async () => {
  const setup = `export STORAGE_USER_PLUGIN_DIR="$PWD/examples/go/plugins/node_modules/pulumi-storage-user/bin" PULUMI_BACKEND_URL="file://$PWD/examples/go/state"\n`;
  const r = ok(await sh(`${setup}${blocks()[1]}`, { STORAGE_ACCESS_TOKEN: token }));
  expectTenantsRun(api, { example: example(), home: path.join(work, "home"), output: r.output, token, cli: cli() });
  // The Go program's outputs as stored, of a tenant still there: the credentials secret, the ids plain.
  const onboard = "cd examples/go && ./tenants onboard initech >/dev/null && cd workspace";
  const withToken = { STORAGE_ACCESS_TOKEN: token };
  const stored = ok(
    await sh(`${setup}${onboard} && pulumi stack output --stack tenant-initech --json`, withToken),
  ).output;
  expect(JSON.parse(stored.slice(stored.indexOf("{")))).toEqual({ userId: api.users[3].Id, env: "[secret]" });
});

test("a service that sets the token without --secret, or is built on another release's SDK, is refused before the engine records anything; no token in the backend", async () => {
  // Copies of the example, as a user would change it: the token set plain; the SDK of a release 9.9.9.
  const variant = path.join(work, "examples", "go-variant");
  const sdk = path.join(work, "sdk", "go-variant");
  fs.cpSync(path.join(repoRoot, "examples", "go"), variant, { recursive: true });
  fs.cpSync(path.join(repoRoot, "sdk", "go"), sdk, { recursive: true });
  const edit = (file: string, from: string, to: string) => {
    const text = fs.readFileSync(file, "utf8");
    expect(text).toContain(from);
    fs.writeFileSync(file, text.split(from).join(to));
  };
  edit(path.join(variant, "main.go"), '"set", "--secret", "--stack"', '"set", "--plaintext", "--stack"');
  ok(await sh("cd examples/go-variant && go build -o tenants-plain ."));
  edit(path.join(sdk, "storageuser", "internal", "pulumiUtilities.go"), `"${packageVersion}"`, '"9.9.9"');
  edit(path.join(variant, "go.mod"), "=> ../../sdk/go", "=> ../../sdk/go-variant");
  ok(await sh("cd examples/go-variant && go build -o tenants-other ."));
  // Each CLI tested (the plugin's CheckConfig is the engine's call), on a backend of its own.
  const run = (binary: string, tenant: string, cli: string) =>
    sh(
      `export STORAGE_USER_PLUGIN_DIR="$PWD/examples/go/plugins/node_modules/pulumi-storage-user/bin" PULUMI_BACKEND_URL="file://$PWD/variant-state/${cli}" TENANTS_WORK_DIR="$PWD/variant-workspace/${cli}"\nmkdir -p variant-state/${cli} && examples/go-variant/${binary} onboard ${tenant}`,
      { STORAGE_ACCESS_TOKEN: token, PATH: [builtCli(cli), nodeBinDir(), process.env.PATH].join(path.delimiter) },
    );
  const requests = api.requests.length;
  const said: [string, string][] = [];
  for (const cli of [pins.cli, pins.cliNewest]) {
    const plain = await run("tenants-plain", "plain", cli);
    expect(plain.code).not.toBe(0);
    expect(plain.output).toContain(
      "[CONFIG_NOT_SECRET] storage-user:accessToken is set in plain text in the stack configuration (Pulumi.tenant-plain.yaml)",
    );
    const other = await run("tenants-other", "other", cli);
    expect(other.code).not.toBe(0);
    expect(other.output).toContain(
      `[VERSION_MISMATCH] the program's SDK asks for the storage-user plugin v9.9.9, but the plugin in plugins.providers is v${packageVersion}`,
    );
    said.push([`the services' output on ${cli}`, plain.output + other.output]);
  }
  expect(api.requests.length).toBe(requests);
  // The backends' stacks, .bak files and backups (their history keeps each update's config: docs/configuration.md).
  const backend = filesUnder(path.join(work, "variant-state")).filter(
    ([f]) => !f.includes(`${path.sep}history${path.sep}`),
  );
  expect(backend.map(([f]) => path.relative(path.join(work, "variant-state"), f))).toEqual(
    expect.arrayContaining(
      [pins.cli, pins.cliNewest].flatMap((cli) =>
        ["tenant-plain", "tenant-other"].map((stack) =>
          expect.stringMatching(new RegExp(`^${cli}/.*/${stack}\\.json$`)),
        ),
      ),
    ),
  );
  expect(hits([...backend, ...said], withEncodings([["the API token", token]]))).toEqual([]);
});
