// A Pulumi YAML program (examples/yaml), set up exactly as its README says, through the real YAML
// language host (tools/yaml-host/build.sh) and the pinned CLI: StorageUser served as a custom
// resource by the package's executable plugin (plugins.providers), with no node_modules in the
// program directory and no Node.js language host. Settings from stack config only: after the
// README's blocks, no STORAGE_* variable is in the environment.
import { execFileSync, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { ApiServer, startApiServer } from "../../../server/api-server";
import { installConsumer } from "../../../scripts/consumer";
import { repoRoot, userPath } from "../../../scripts/toolchain";
import { filesUnder, hits, secretsOf, withEncodings } from "../../support/secrets";
import { isSecret as isSecretOutput, outputNames } from "../../../provider/model";

const everyOutput = ["userName", "persistPassword", ...outputNames];
const token = "yaml-token-" + Math.random().toString(36).slice(2, 12);
let api: ApiServer;
let work: string;
let programDir: string;
let env: NodeJS.ProcessEnv;

const yamlHostDir = () =>
  execFileSync("bash", [path.join(repoRoot, "tools", "yaml-host", "build.sh")], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  }).trim();

/** The ```sh blocks of examples/yaml/README.md, in order. */
const readmeBlocks = (): string[] =>
  [
    ...fs.readFileSync(path.join(repoRoot, "examples", "yaml", "README.md"), "utf8").matchAll(/```sh\n([\s\S]*?)```/g),
  ].map((m) => m[1]);

/** Runs a script as a user's shell would; asynchronously, so the API server in this process answers. */
function sh(script: string, extra: Record<string, string | undefined> = {}): Promise<{ code: number; output: string }> {
  const e = { ...env, ...extra };
  for (const [k, v] of Object.entries(extra)) if (v === undefined) delete e[k];
  const child = spawn("bash", ["-euo", "pipefail", "-c", script], {
    cwd: work,
    env: e,
    stdio: ["ignore", "pipe", "pipe"],
    timeout: 900_000,
  });
  let output = "";
  child.stdout.on("data", (d) => (output += d));
  child.stderr.on("data", (d) => (output += d));
  return new Promise((resolve) => child.on("close", (code) => resolve({ code: code ?? -1, output })));
}
const pulumi = (args: string, extra: Record<string, string | undefined> = {}) =>
  sh(`cd examples/yaml && pulumi ${args}`, { STORAGE_API_URL: undefined, ...extra });

beforeAll(async () => {
  api = await startApiServer({ token });
  work = fs.mkdtempSync(path.join(os.tmpdir(), "yaml-example-"));
  // A copy of the example as a user has it: its own directory, nothing installed around it.
  fs.cpSync(path.join(repoRoot, "examples", "yaml"), path.join(work, "examples", "yaml"), { recursive: true });
  programDir = path.join(work, "examples", "yaml");
  // The program exports every output of the TypeScript resource, not only the example's.
  const pulumiYaml = path.join(programDir, "Pulumi.yaml");
  const exported = fs.readFileSync(pulumiYaml, "utf8");
  const more = everyOutput
    .filter((k) => !new RegExp(`^  ${k}:`, "m").test(exported))
    .map((k) => `  ${k}: \${app.${k}}\n`);
  fs.writeFileSync(pulumiYaml, exported.trimEnd() + "\n" + more.join(""));
  const consumer = installConsumer();
  const tarball = fs.readdirSync(consumer).find((f) => f.endsWith(".tgz"))!;
  fs.mkdirSync(path.join(work, "state"));
  env = {
    ...process.env,
    PATH: userPath(undefined, [yamlHostDir()]),
    PULUMI_HOME: path.join(work, "home"),
    PULUMI_BACKEND_URL: `file://${path.join(work, "state")}`,
    PULUMI_CONFIG_PASSPHRASE: "yaml-test-passphrase",
    PULUMI_SKIP_UPDATE_CHECK: "true",
    STORAGE_API_URL: api.url,
    STORAGE_USER_PKG: path.join(consumer, tarball),
  };
  delete env.STORAGE_ACCESS_TOKEN;
}, 600_000);
afterAll(async () => {
  await api?.close();
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

describe("StorageUser from Pulumi YAML (examples/yaml)", async () => {
  test("the README's set-up and preview run as written, without a token, calling no API", async () => {
    const [setup] = readmeBlocks();
    const r = await sh(setup);
    expect(r.code, r.output).toBe(0);
    expect(r.output).toMatch(/\+\s+storage-user:index:StorageUser app create/);
    expect(api.requests).toHaveLength(0);
    // No Node.js modules in the program's directory: only in plugins/ beside Pulumi.yaml.
    expect(fs.existsSync(path.join(programDir, "node_modules"))).toBe(false);
  });

  test("up creates one user; its outputs are secret; no secret is in state, history or backups", async () => {
    const [, create] = readmeBlocks();
    const r = await sh(`cd examples/yaml\n${create}`, { STORAGE_ACCESS_TOKEN: token });
    expect(r.code, r.output).toBe(0);
    expect(api.users).toHaveLength(1);
    const [u] = api.users;
    expect(r.output).toMatch(/s3\s+: \[secret\]/);
    expect(r.output).toMatch(/credentials\s*: \[secret\]/);
    expect(JSON.parse(r.output.slice(r.output.lastIndexOf("{"))).secretKey).toBe(u.S3Connection.SecretKey);
    const outputs = JSON.parse((await pulumi("stack output --json")).output);
    expect(outputs.userId).toBe(u.Id);
    // Every output of the TypeScript resource, secret exactly where it is secret in TypeScript.
    expect(Object.keys(outputs).sort()).toEqual([...everyOutput].sort());
    for (const k of outputNames) expect(outputs[k] === "[secret]", k).toBe(isSecretOutput(k));
    expect(outputs.state).toBe(u.State);
    expect(outputs.creationTaskId).toBe(u.Tasks[0].Id);
    const shown = JSON.parse((await pulumi("stack output --json --show-secrets")).output);
    expect(shown.credentials.s3.secretKey).toBe(u.S3Connection.SecretKey);
    expect(shown.env.AWS_SECRET_ACCESS_KEY).toBe(u.S3Connection.SecretKey);
    expect(shown.ftpUrl).toContain(`@${u.FtpConnection.HostName}/`);
    const needles = withEncodings([["the API token", token], ...secretsOf(u)]);
    expect(hits(filesUnder(path.join(work, "state")), needles)).toEqual([]);
    expect(hits(filesUnder(path.join(work, "home")), needles)).toEqual([]);
    // The stack's config file holds the token encrypted only.
    expect(fs.readFileSync(path.join(programDir, "Pulumi.dev.yaml"), "utf8")).toContain(
      "storage-user:accessToken:\n    secure:",
    );
    expect(
      hits([["Pulumi.dev.yaml", fs.readFileSync(path.join(programDir, "Pulumi.dev.yaml"), "latin1")]], needles),
    ).toEqual([]);
    expect(hits([["up output", r.output.slice(0, r.output.lastIndexOf("{"))]], needles)).toEqual([]);
  });

  test("a second up changes nothing and sends 0 API requests", async () => {
    const before = api.requests.length;
    const r = await pulumi("up --yes");
    expect(r.code, r.output).toBe(0);
    expect(r.output).toMatch(/2 unchanged/);
    expect(api.requests.length).toBe(before);
  });

  test("rotation by up --replace (README): a new user, the old one named as left on the service", async () => {
    const [old] = api.users;
    const r = await pulumi("up --yes --replace 'urn:pulumi:dev::yaml-users::storage-user:index:StorageUser::app'");
    expect(r.code, r.output).toBe(0);
    expect(api.users).toHaveLength(2);
    // --replace skips diff, so the original's delete names it (as for TypeScript programs).
    expect(r.output).toContain(`[USER_LEFT_STACK] StorageUser '${old.Name}' (id ${old.Id}`);
    expect(JSON.parse((await pulumi("stack output --json")).output).userId).toBe(api.users[1].Id);
  });

  test("bad input is refused at preview with the TypeScript resource's messages, before any request", async () => {
    const before = api.requests.length;
    const pulumiYaml = path.join(programDir, "Pulumi.yaml");
    const original = fs.readFileSync(pulumiYaml, "utf8");
    try {
      fs.writeFileSync(pulumiYaml, original.replace("outputs:", '    properties:\n      userName: " app"\noutputs:'));
      const r = await pulumi("preview");
      expect(r.code).not.toBe(0);
      // The same check as for TypeScript programs (plugin/user-provider.ts check), at preview.
      expect(r.output).toContain(
        `storage-user:index:StorageUser resource 'app': property userName value { app} has a problem: must not start or end with whitespace: use "app"`,
      );
      fs.writeFileSync(pulumiYaml, original);
      expect((await pulumi("config rm storage-user:baseUrl")).code).toBe(0);
      const noUrl = await pulumi("preview");
      expect(noUrl.code).not.toBe(0);
      expect(noUrl.output).toContain(
        "[CONFIG_MISSING] no storage API address is configured: run `pulumi config set storage-user:baseUrl https://<api-host>`, or set STORAGE_API_URL in the environment of the pulumi command",
      );
    } finally {
      fs.writeFileSync(pulumiYaml, original);
      expect((await pulumi(`config set storage-user:baseUrl ${api.url}`)).code).toBe(0);
    }
    expect(api.requests.length).toBe(before);
  });

  test("customTimeouts.create bounds a create's retries, as for TypeScript programs", async () => {
    const before = api.requests.length;
    const pulumiYaml = path.join(programDir, "Pulumi.yaml");
    const original = fs.readFileSync(pulumiYaml, "utf8");
    // 8 answers of 503: the default budget (120 s) outlasts them and creates the user; 2 s does not.
    api.inject(...Array.from({ length: 8 }, () => ({ kind: "status" as const, status: 503, retryAfter: "1" })));
    try {
      fs.writeFileSync(
        pulumiYaml,
        original.replace(
          "outputs:",
          "  slow:\n    type: storage-user:index:StorageUser\n    properties:\n      userName: slow-user\n    options:\n      customTimeouts:\n        create: 2s\noutputs:",
        ),
      );
      const r = await pulumi("up --yes");
      expect(r.code).not.toBe(0);
      expect(r.output).toContain("[RETRIES_EXHAUSTED] the storage API did not accept the create after");
      const sent = api.requests.length - before;
      expect(sent).toBeGreaterThanOrEqual(2);
      expect(sent).toBeLessThan(8);
      expect(api.users.map((u) => u.Name)).not.toContain("slow-user");
    } finally {
      fs.writeFileSync(pulumiYaml, original);
    }
  });

  test("destroy names every user left on the service, and nothing was written outside the program", async () => {
    const r = await pulumi("destroy --yes");
    expect(r.code, r.output).toBe(0);
    const current = api.users[1];
    expect(r.output).toContain(
      `[USER_LEFT_STACK] StorageUser '${current.Name}' (id ${current.Id}, on ${new URL(api.url).href})`,
    );
    expect(fs.readdirSync(path.join(work, "examples")).sort()).toEqual(["yaml"]);
    expect(fs.readdirSync(programDir).sort()).toEqual(["Pulumi.dev.yaml", "Pulumi.yaml", "README.md", "plugins"]);
    // No schema-<pkg>.json beside the plugin directory (the component route wrote one there).
    const pkgDir = path.join(programDir, "plugins", "node_modules", "pulumi-storage-user");
    expect(fs.readdirSync(pkgDir).filter((f) => f.startsWith("schema-"))).toEqual([]);
    expect(
      fs.readdirSync(path.join(programDir, "plugins", "node_modules")).filter((f) => f.startsWith("schema-")),
    ).toEqual([]);
  });
});
