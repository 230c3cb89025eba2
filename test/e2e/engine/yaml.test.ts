// examples/yaml set up as its README says, through the real YAML language host: StorageUser served by
// the package's executable plugin (plugins.providers), no Node.js host, settings from stack config
// only; an explicit provider for a second service; what the plugin refuses in its configuration.
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { ApiServer, startApiServer } from "../../../server/api-server";
import { repoRoot, userPath } from "../../../scripts/toolchain";
import { failed, ok, packedTarball, run, shBlocks } from "../../support/cli-project";
import { errorSaid, reasons, warningSaid } from "../../support/said";
import { filesUnder, hits, secretsOf, withEncodings } from "../../support/secrets";

const { version } = JSON.parse(fs.readFileSync(path.join(repoRoot, "package.json"), "utf8")) as { version: string };
const token = "yaml-token-" + Math.random().toString(36).slice(2, 12);
const euToken = "yaml-eu-token-" + Math.random().toString(36).slice(2, 12);
let api: ApiServer;
/** A second service, reached through an explicit provider. */
let eu: ApiServer;
let work: string;
let programDir: string;
let env: NodeJS.ProcessEnv;
/** Each property of StorageUser in the plugin's schema: whether it is secret. */
let schemaOutputs: Record<string, boolean>;

/** Runs a script as a user's shell would. */
const sh = (script: string, extra: Record<string, string | undefined> = {}) =>
  run("bash", ["-euo", "pipefail", "-c", script], { cwd: work, env: { ...env, ...extra } });
/** `script` in the program's directory, with no STORAGE_* variable in its environment. */
const inProgram = (script: string) => sh(`cd examples/yaml && ${script}`, { STORAGE_API_URL: undefined });
const pulumi = (args: string) => inProgram(`pulumi ${args}`);
const readmeBlocks = () => shBlocks("examples/yaml/README.md");
const pulumiYaml = () => path.join(programDir, "Pulumi.yaml");
/** Runs `run` with Pulumi.yaml's `outputs:` line replaced by `resources` and that line, then puts the file back. */
async function withResources<T>(resources: string, run: () => Promise<T>): Promise<T> {
  const original = fs.readFileSync(pulumiYaml(), "utf8");
  fs.writeFileSync(pulumiYaml(), original.replace("outputs:", `${resources}outputs:`));
  try {
    return await run();
  } finally {
    fs.writeFileSync(pulumiYaml(), original);
  }
}

beforeAll(async () => {
  [api, eu] = await Promise.all([startApiServer({ token }), startApiServer({ token: euToken })]);
  work = fs.mkdtempSync(path.join(os.tmpdir(), "yaml-example-"));
  // A copy of the example as a user has it: its own directory, nothing installed around it.
  fs.cpSync(path.join(repoRoot, "examples", "yaml"), path.join(work, "examples", "yaml"), { recursive: true });
  programDir = path.join(work, "examples", "yaml");
  const yamlHost = execFileSync("bash", [path.join(repoRoot, "tools", "yaml-host", "build.sh")], { encoding: "utf8" });
  env = {
    ...process.env,
    PATH: userPath(undefined, [yamlHost.trim()]),
    PULUMI_HOME: path.join(work, "home"),
    PULUMI_BACKEND_URL: `file://${path.join(work, "state")}`,
    PULUMI_CONFIG_PASSPHRASE: "yaml-test-passphrase",
    PULUMI_SKIP_UPDATE_CHECK: "true",
    STORAGE_API_URL: api.url,
    STORAGE_USER_PKG: packedTarball(),
  };
  delete env.STORAGE_ACCESS_TOKEN;
  fs.mkdirSync(path.join(work, "state"));
});
afterAll(async () => {
  await api?.close();
  await eu?.close();
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

test("the README's set-up and preview run as written, without a token, calling no API", async () => {
  const r = ok(await sh(readmeBlocks()[0]));
  expect(r.output).toMatch(/\+\s+storage-user:index:StorageUser app create/);
  // Preview names no user: the plugin keeps only a suffix, and the create makes `app-<suffix>` (checked after up).
  const preview = ok(await pulumi("preview --json")).output;
  const plan = JSON.parse(preview.slice(preview.indexOf("{"))) as {
    steps: Array<{ urn: string; newState: { inputs: object } }>;
  };
  const app = plan.steps.find((s) => s.urn.endsWith("::app"));
  expect(app?.newState.inputs).not.toHaveProperty("userName");
  expect(api.requests).toHaveLength(0);
  // No Node.js modules in the program's directory: only in plugins/ beside Pulumi.yaml.
  expect(fs.existsSync(path.join(programDir, "node_modules"))).toBe(false);
  // The program exports every property of the resource in the plugin's schema, not only the example's.
  const schema = await pulumi(
    "package get-schema ./plugins/node_modules/pulumi-storage-user/bin/pulumi-resource-storage-user",
  );
  const props = JSON.parse(schema.output.slice(schema.output.indexOf("{"))).resources["storage-user:index:StorageUser"]
    .properties;
  schemaOutputs = Object.fromEntries(
    Object.entries(props).map(([k, p]) => [k, (p as { secret?: boolean }).secret === true]),
  );
  const exported = fs.readFileSync(pulumiYaml(), "utf8");
  const more = Object.keys(schemaOutputs).filter((k) => !new RegExp(`^  ${k}:`, "m").test(exported));
  fs.writeFileSync(pulumiYaml(), exported.trimEnd() + "\n" + more.map((k) => `  ${k}: \${app.${k}}\n`).join(""));
});

// On a stack of its own: the CLI's update history keeps the config of each refused update (docs/configuration.md).
test("a token in plain stack config, or a misspelt key, is refused before the engine records anything, even by up --skip-preview", async () => {
  try {
    const setPlain = `pulumi stack init plain && pulumi config set storage-user:baseUrl ${api.url} && printf %s ${token} | pulumi config set --plaintext storage-user:accessToken && pulumi up --yes --skip-preview`;
    const plain = failed(await inProgram(setPlain));
    const keys = { key: "storage-user:accessToken", env: "STORAGE_ACCESS_TOKEN", path: false };
    expect(plain.output).toContain(
      errorSaid("CONFIG_NOT_SECRET", { ...keys, where: "Pulumi.plain.yaml", project: false, inline: false }),
    );
    // A misspelt key is refused too: it is no setting, and as the provider's input it would sit in the state.
    const setTypo = `pulumi config rm storage-user:accessToken && printf %s ${token} | pulumi config set --plaintext storage-user:accessTokn && pulumi up --yes --skip-preview`;
    const typo = failed(await inProgram(setTypo));
    const known = ["storage-user:baseUrl", "storage-user:accessToken"];
    const unknown = { keys: ["storage-user:accessTokn"], known, path: false, suggest: "storage-user:accessToken" };
    expect(typo.output).toContain(errorSaid("CONFIG_INVALID", { problem: "unknownKeys", ...unknown }));
    // The stack's file, its .bak and backups hold no token: CheckConfig refuses before the engine records the provider.
    const places = filesUnder(path.join(work, "state")).filter(([f]) => !f.includes(`${path.sep}history${path.sep}`));
    expect(places.map(([f]) => path.basename(f))).toContain("plain.json");
    places.push(["up output", plain.output + typo.output]);
    expect(hits(places, withEncodings([["the API token", token]]))).toEqual([]);
    expect(api.requests).toHaveLength(0);
  } finally {
    ok(await pulumi("stack rm plain --yes --force"));
    ok(await pulumi("stack select dev"));
  }
});

test("up creates one user; every output secret exactly where the schema says; no secret in state, history, backups or the config file", async () => {
  const r = ok(await sh(`cd examples/yaml\n${readmeBlocks()[1]}`, { STORAGE_ACCESS_TOKEN: token }));
  expect(api.users).toHaveLength(1);
  const [u] = api.users;
  expect(u.Name).toMatch(/^app-[0-9a-f]{7}$/);
  expect(r.output).toMatch(/s3\s+: \[secret\]/);
  expect(JSON.parse(r.output.slice(r.output.lastIndexOf("{"))).secretKey).toBe(u.S3Connection.SecretKey);
  const outputs = JSON.parse((await pulumi("stack output --json")).output);
  expect(outputs).toMatchObject({ userId: u.Id, state: u.State, creationTaskId: u.Tasks[0].Id });
  expect(Object.keys(outputs).sort()).toEqual(Object.keys(schemaOutputs).sort());
  for (const k of Object.keys(outputs)) expect(outputs[k] === "[secret]", k).toBe(schemaOutputs[k]);
  const shown = JSON.parse((await pulumi("stack output --json --show-secrets")).output);
  expect(shown.credentials.s3.secretKey).toBe(u.S3Connection.SecretKey);
  expect(shown.env.AWS_SECRET_ACCESS_KEY).toBe(u.S3Connection.SecretKey);
  expect(shown.ftpUrl).toContain(`@${u.FtpConnection.HostName}/`);
  // Stored: TypeScript's state, each value once; every output above derived at each run (the plugin's Construct).
  const user = JSON.parse((await pulumi("stack export")).output).deployment.resources.find(
    (x: { id?: string }) => x.id === String(u.Id),
  );
  expect(Object.keys(user.outputs).sort()).toStrictEqual(["account", "persistPassword", "secrets", "userName"]);
  expect([user.sourcePosition, user.stackTrace]).toStrictEqual([undefined, undefined]); // the plugin's own frames
  const stackConfig = fs.readFileSync(path.join(programDir, "Pulumi.dev.yaml"), "utf8");
  expect(stackConfig).toContain("storage-user:accessToken:\n    secure:");
  const needles = withEncodings([["the API token", token], ...secretsOf(u)]);
  const places = [...filesUnder(path.join(work, "state")), ...filesUnder(path.join(work, "home"))];
  places.push(["Pulumi.dev.yaml", stackConfig], ["up output", r.output.slice(0, r.output.lastIndexOf("{"))]);
  expect(hits(places, needles)).toEqual([]);
});

test("a second up changes nothing and sends 0 API requests", async () => {
  const before = api.requests.length;
  const r = ok(await pulumi("up --yes"));
  expect(r.output).toMatch(/2 unchanged/);
  expect(api.requests.length).toBe(before);
});

/** SupportsFeature calls in a preview of examples/yaml: the YAML host's and the plugin's, each question once. */
const FEATURE_CALLS = 19;
test("the plugin asks the engine's features once, however many users it constructs", async () => {
  const asked = async (resources: string) => {
    const log = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "grpc-")), "log.json");
    await withResources(resources, () => sh("cd examples/yaml && pulumi preview", { PULUMI_DEBUG_GRPC: log }));
    const lines = fs.readFileSync(log, "utf8").split("\n");
    fs.rmSync(path.dirname(log), { recursive: true });
    return lines.filter((l) => l.includes("ResourceMonitor/SupportsFeature") && l.includes('"request_started"')).length;
  };
  const three = ["b", "c", "d"].map((n) => `  ${n}:\n    type: storage-user:index:StorageUser\n`).join("");
  // The YAML host's questions and the plugin's 11 (the SDK's configureRuntime), each once: the same with three more users.
  const [one, four] = [await asked(""), await asked(three)];
  expect([one, four]).toStrictEqual([FEATURE_CALLS, FEATURE_CALLS]);
});

test("rotation by up --replace (README) makes a new user, naming the old one; an explicit provider with a secret token creates another on its own service", async () => {
  const [old] = api.users;
  ok(await inProgram(`pulumi config set euUrl ${eu.url} && printf %s ${euToken} | pulumi config set --secret euToken`));
  const provider = `config:\n  euUrl: { type: string }\n  euToken: { type: string }\n`;
  const resources = `  eu:\n    type: pulumi:providers:storage-user\n    properties:\n      baseUrl: \${euUrl}\n      accessToken: \${euToken}\n  euUser:\n    type: storage-user:index:StorageUser\n    options:\n      provider: \${eu}\n`;
  const yaml = fs.readFileSync(pulumiYaml(), "utf8").replace("resources:", `${provider}resources:`);
  fs.writeFileSync(pulumiYaml(), yaml.replace("outputs:", `${resources}outputs:`));
  const r = ok(await pulumi("up --yes --replace 'urn:pulumi:dev::yaml-users::storage-user:index:StorageUser::app'"));
  expect(api.users).toHaveLength(2);
  // --replace skips diff, so the original's delete names it (as for TypeScript programs).
  const service = new URL(api.url).href;
  expect(r.output).toContain(
    warningSaid("USER_LEFT_STACK", { id: String(old.Id), userName: old.Name, service, failed: false }),
  );
  expect(JSON.parse((await pulumi("stack output --json")).output).userId).toBe(api.users[1].Id);
  expect(eu.users).toHaveLength(1);
  expect(eu.requests.map((q) => q.authorized)).toEqual([true]);
  const needles = withEncodings([["the eu token", euToken], ...secretsOf(eu.users[0])]);
  expect(hits([...filesUnder(path.join(work, "state")), ["up output", r.output]], needles)).toEqual([]);
});

test("bad input and a missing base URL (set in the TypeScript namespace) are refused at preview with the TypeScript resource's messages, before any request", async () => {
  const before = api.requests.length;
  const badUser = '  bad:\n    type: storage-user:index:StorageUser\n    properties:\n      userName: " app"\n';
  const bad = failed(await withResources(badUser, () => pulumi("preview")));
  // The same check as for TypeScript programs, at preview.
  expect(bad.output).toContain(
    `storage-user:index:StorageUser resource 'bad': property userName value { app} has a problem: ${reasons.userNameSpaces("app")}`,
  );
  // Put back whatever the preview does (bash -e would stop at its failure).
  const previewWithTsUrl = `pulumi config rm storage-user:baseUrl; pulumi config set storage:baseUrl ${api.url}; s=0; pulumi preview || s=$?; pulumi config rm storage:baseUrl; pulumi config set storage-user:baseUrl ${api.url}; exit $s`;
  const noUrl = failed(await inProgram(previewWithTsUrl));
  const keys = { key: "storage-user:baseUrl", env: "STORAGE_API_URL", path: false };
  expect(noUrl.output).toContain(
    errorSaid("CONFIG_MISSING", { setting: "address", ...keys, setElsewhere: "storage:baseUrl" }),
  );
  expect(api.requests.length).toBe(before);
});

test("customTimeouts.create bounds a create's retries, as for TypeScript programs", async () => {
  const before = api.requests.length;
  // 8 answers of 503: the default budget (120 s) outlasts them and creates the user; 4 s does not (a few attempts, a second or more apart).
  api.inject(...Array.from({ length: 8 }, () => ({ kind: "status" as const, status: 503, retryAfter: "1" })));
  const slow =
    "  slow:\n    type: storage-user:index:StorageUser\n    properties:\n      userName: slow-user\n    options:\n      customTimeouts:\n        create: 4s\n";
  const r = failed(await withResources(slow, () => pulumi("up --yes")));
  const said = /\[RETRIES_EXHAUSTED\] .* after (\d+) attempt\(s\), last answer: HTTP 503/.exec(r.output);
  expect(said, r.output).not.toBeNull();
  // The message counts the attempts the API received: at least 2, and fewer than the 8 that would have created it.
  const attempts = Number(said![1]);
  expect([api.requests.length - before, attempts >= 2 && attempts < 8]).toStrictEqual([attempts, true]);
  expect(api.users.map((u) => u.Name)).not.toContain("slow-user");
});

test("destroy names every user left on its service, and nothing was written outside the program", async () => {
  const r = ok(await pulumi("destroy --yes"));
  for (const [u, url] of [
    [api.users[1], api.url],
    [eu.users[0], eu.url],
  ] as const)
    expect(r.output).toContain(
      warningSaid("USER_LEFT_STACK", { id: String(u.Id), userName: u.Name, service: new URL(url).href, failed: false }),
    );
  expect(fs.readdirSync(path.join(work, "examples")).sort()).toEqual(["yaml"]);
  expect(fs.readdirSync(programDir).sort()).toEqual(["Pulumi.dev.yaml", "Pulumi.yaml", "README.md", "plugins"]);
  // No schema-<pkg>.json beside the plugin directory (the component route wrote one there).
  const modules = path.join(programDir, "plugins", "node_modules");
  for (const dir of [modules, path.join(modules, "pulumi-storage-user")])
    expect(fs.readdirSync(dir).filter((f) => f.startsWith("schema-"))).toEqual([]);
});

// Last: the engine caches the schema of a plugin asked for by version beside it (schema-storage-user.json).
test("a resource asking for another version of the plugin is refused at preview, naming both versions", async () => {
  const before = api.requests.length;
  const other = "  other:\n    type: storage-user:index:StorageUser\n    options:\n      version: 9.9.9\n";
  const r = failed(await withResources(other, () => pulumi("preview")));
  expect(r.output).toContain(errorSaid("VERSION_MISMATCH", { wanted: "9.9.9", running: version }));
  expect(api.requests.length).toBe(before);
});
