// Python: examples/python, the tenants service of examples/go on the Automation API (inline
// programs: no Python language host) and the generated Python SDK (sdks.test.ts), installed and
// run as its README says with the plain CLI v3.274.1 and the packed package's executable plugin,
// settings from each stack's config only; pip installs from the pinned wheels only
// (tools/toolchain/python.sh).
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { ApiServer, startApiServer } from "../../server/api-server";
import { builtCli, nodeBinDir, pins, repoRoot, packageVersion } from "../../scripts/toolchain";
import { filesUnder, hits, secretsOf, withEncodings } from "../support/secrets";
import { argvLoggingCli, expectTenantsRun } from "../support/tenants";
import { failed, ok, packedTarball, run, shBlocks } from "../support/cli-project";

const token = "python-example-token-" + Math.random().toString(36).slice(2, 12);
let api: ApiServer;
let work: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  api = await startApiServer({ token });
  work = fs.mkdtempSync(path.join(os.tmpdir(), "python-example-"));
  env = {
    ...process.env,
    ...python(pins.pythonPulumi),
    PIP_NO_INDEX: "1",
    PIP_DISABLE_PIP_VERSION_CHECK: "1",
    PULUMI_HOME: path.join(work, "home"),
    PULUMI_CONFIG_PASSPHRASE: "python-example-passphrase",
    PULUMI_SKIP_UPDATE_CHECK: "true",
    PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
    STORAGE_API_URL: api.url,
    STORAGE_USER_PKG: packedTarball(),
  };
  for (const k of ["STORAGE_ACCESS_TOKEN", "PULUMI_BACKEND_URL", "STORAGE_USER_PLUGIN_DIR", "TENANTS_WORK_DIR"])
    delete env[k];
  // The example and the SDK it installs, laid out as in a clone.
  fs.cpSync(path.join(repoRoot, "examples", "python"), example(), { recursive: true });
  fs.cpSync(path.join(repoRoot, "sdk", "python"), path.join(work, "sdk", "python"), { recursive: true });
});
afterAll(async () => {
  await api?.close();
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

/** The cached Python environment of that `pulumi` release first on PATH, pip given its wheels. */
function python(version: string) {
  const dir = execFileSync("bash", [path.join(repoRoot, "tools/toolchain/python.sh"), version], {
    encoding: "utf8",
  }).trim();
  const PATH = [
    path.join(dir, "venv", "bin"),
    argvLoggingCli(cli(), builtCli(pins.cliNewest)),
    nodeBinDir(),
    process.env.PATH,
  ];
  return { PATH: PATH.join(path.delimiter), PIP_FIND_LINKS: path.join(dir, "wheels") };
}
/** The plain CLI v3.274.1 (`pulumi` alone, no language host beside it), each command line it runs logged. */
const cli = () => path.join(work, "cli");
const example = () => path.join(work, "examples", "python");
const blocks = () => shBlocks("examples/python/README.md");
/** Runs a script as a user's shell would. */
const sh = (script: string, extra: Record<string, string> = {}) =>
  run("bash", ["-euo", "pipefail", "-c", script], { cwd: work, env: { ...env, ...extra } });
/** What the README's first block exported, for the commands after it. */
const setup = `export STORAGE_USER_PLUGIN_DIR="$PWD/examples/python/plugins/node_modules/pulumi-storage-user/bin" PULUMI_BACKEND_URL="file://$PWD/examples/python/state"\n`;
const withToken = { STORAGE_ACCESS_TOKEN: token };

test("the install and preview run as written with the plain CLI and no language host, without a token, calling no API", async () => {
  expect(execFileSync("pulumi", ["version"], { env, encoding: "utf8" }).trim()).toBe(pins.cliNewest);
  const dirs = env.PATH!.split(path.delimiter).filter((d) => fs.existsSync(d));
  expect(dirs.flatMap((d) => fs.readdirSync(d).filter((f) => f.startsWith("pulumi-language-")))).toEqual([]);
  const r = ok(await sh(blocks()[0]));
  // From the pinned wheels: the pulumi the tests pin, the SDK of this clone.
  const installed = /^Successfully installed (.*)$/m.exec(r.output)![1].split(" ");
  expect(installed).toEqual(
    expect.arrayContaining([`pulumi-${pins.pythonPulumi}`, `pulumi_storage_user-${packageVersion}`, "tenants-0.1.0"]),
  );
  expect(r.output).toMatch(/\+\s+storage-user:index:StorageUser storage create/);
  expect(api.requests).toHaveLength(0);
});

test("onboard, again, rotate, offboard: one user per tenant, envs handed over, 0 requests when nothing changes, users left named, no secret kept in clear", async () => {
  const r = ok(await sh(`${setup}${blocks()[1]}`, withToken));
  expectTenantsRun(api, { example: example(), home: path.join(work, "home"), output: r.output, token, cli: cli() });
});

test("on the lowest pulumi the SDK accepts, the service installs, onboards a tenant with one request and offboards it", async () => {
  const pyproject = fs.readFileSync(path.join(repoRoot, "sdk", "python", "pyproject.toml"), "utf8");
  const lowest = /"pulumi>=([\d.]+),/.exec(pyproject)![1];
  expect(lowest).not.toBe(pins.pythonPulumi);
  fs.cpSync(path.join(repoRoot, "examples", "python"), path.join(work, "examples", "python-lowest"), {
    recursive: true,
  });
  const before = api.requests.length;
  const install = "python3 -m venv .venv && . .venv/bin/activate && pip install ../../sdk/python .";
  const showVersion = `python -c 'import importlib.metadata as m; print("pulumi", m.version("pulumi"))'`;
  const r = ok(
    await sh(
      `${setup}cd examples/python-lowest && ${install} && ${showVersion} && tenants onboard lowest >/dev/null && tenants offboard lowest`,
      { ...withToken, ...python(lowest) },
    ),
  );
  expect(r.output).toContain(`pulumi ${lowest}\n`);
  expect(api.requests.length - before).toBe(1);
  const user = api.users.at(-1)!;
  expect(user.Name).toBe("lowest-storage");
  expect(r.output).toContain(`[USER_LEFT_STACK] StorageUser '${user.Name}' (id ${user.Id}`);
});

test("every output is secret in the Python program and in the stack outputs exactly where the schema says", async () => {
  const before = api.requests.length;
  const schema = JSON.parse(
    execFileSync(
      "pulumi",
      ["package", "get-schema", path.join(example(), "plugins/node_modules/.bin/pulumi-resource-storage-user")],
      {
        env,
        encoding: "utf8",
      },
    ),
  );
  const props = schema.resources["storage-user:index:StorageUser"].properties as Record<string, { secret?: boolean }>;
  const names = Object.keys(props);
  const script = path.join(repoRoot, "test/programs/python/outputs.py");
  const r = ok(
    await sh(`${setup}cd examples/python && . .venv/bin/activate && python ${script} ${names.join(" ")}`, {
      ...withToken,
      TENANTS_WORK_DIR: path.join(work, "outputs-workspace"),
    }),
  );
  expect(api.requests.length - before).toBe(1);
  const seen = JSON.parse(r.output.trim().split("\n").pop()!) as Record<
    string,
    { program: boolean; stack: boolean | null }
  >;
  for (const name of names) {
    const secret = props[name].secret === true;
    expect([name, seen[name].program], "Output.is_secret()").toEqual([name, secret]);
    // An output with no value (connection, for the default one) is no stack output.
    if (seen[name].stack !== null) expect([name, seen[name].stack], "OutputValue.secret").toEqual([name, secret]);
  }
  expect(names.filter((n) => seen[n].stack !== null).length).toBeGreaterThan(15);
  expect(hits([["the script's output", r.output]], withEncodings(secretsOf(api.users.at(-1)!)))).toEqual([]);
});

test("bad input, a token set without --secret, and another release's SDK are refused with the TypeScript messages, before any request; no token in the backend", async () => {
  // Copies of the service, as a user would change it; then the SDK of a release 9.9.9 installed in its place.
  const variant = path.join(work, "variant");
  fs.mkdirSync(variant);
  const edited = (name: string, from: string, to: string) => {
    const text = fs.readFileSync(path.join(example(), "tenants.py"), "utf8");
    expect(text).toContain(from);
    fs.writeFileSync(path.join(variant, name), text.split(from).join(to));
  };
  edited("plain.py", '"set", "--secret", "--stack"', '"set", "--plaintext", "--stack"');
  edited("bad.py", 'user_name=f"{tenant}-{suffix}"', 'user_name=f" {tenant}-{suffix}"');
  const sdk = path.join(work, "sdk", "python-9.9.9");
  fs.cpSync(path.join(work, "sdk", "python"), sdk, { recursive: true });
  const pyproject = path.join(sdk, "pyproject.toml");
  fs.writeFileSync(
    pyproject,
    fs.readFileSync(pyproject, "utf8").replace(`version = "${packageVersion}"`, 'version = "9.9.9"'),
  );
  const service = (command: string) =>
    sh(
      `${setup}export PULUMI_BACKEND_URL="file://$PWD/variant-state" TENANTS_WORK_DIR="$PWD/variant-workspace"\nmkdir -p variant-state && cd examples/python && . .venv/bin/activate && ${command}`,
      withToken,
    );
  const requests = api.requests.length;
  const bad = failed(await service("python ../../variant/bad.py preview bad"));
  expect(bad.output).toContain(
    `storage-user:index:StorageUser resource 'storage': property userName value { bad-storage} has a problem: must not start or end with whitespace: use "bad-storage"`,
  );
  const plain = failed(await service("python ../../variant/plain.py onboard plain"));
  expect(plain.output).toContain(
    "[CONFIG_NOT_SECRET] storage-user:accessToken is set in plain text in the stack configuration (Pulumi.tenant-plain.yaml)",
  );
  ok(await service(`pip install --quiet --no-deps ${sdk}`));
  const other = failed(await service("tenants onboard other"));
  expect(other.output).toContain(
    `[VERSION_MISMATCH] the program's SDK asks for the storage-user plugin v9.9.9, but the plugin in plugins.providers is v${packageVersion}`,
  );
  expect(api.requests.length).toBe(requests);
  // The backend's stacks, .bak files and backups (its history keeps each update's config: docs/configuration.md).
  const backend = filesUnder(path.join(work, "variant-state")).filter(
    ([f]) => !f.includes(`${path.sep}history${path.sep}`),
  );
  expect(backend.map(([f]) => path.basename(f))).toEqual(
    expect.arrayContaining(["tenant-plain.json", "tenant-other.json"]),
  );
  const said: [string, string][] = [["the services' output", bad.output + plain.output + other.output]];
  expect(hits([...backend, ...said], withEncodings([["the API token", token]]))).toEqual([]);
});
