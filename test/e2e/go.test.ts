// examples/go, the tenant-onboarding Go service, built and run exactly as its README says, with
// the plain CLI v3.274.1 and the packed package's executable plugin: one StorageUser per tenant,
// each tenant's env handed to the caller, settings from each stack's config only.
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { ApiServer, startApiServer } from "../../server/api-server";
import { installConsumer } from "../../scripts/consumer";
import { builtCli, nodeBinDir, pins, repoRoot } from "../../scripts/toolchain";
import { filesUnder, hits, secretsOf, withEncodings } from "../support/secrets";

const token = "go-example-token-" + Math.random().toString(36).slice(2, 12);
let api: ApiServer;
let work: string;
let exampleDir: string;
let env: NodeJS.ProcessEnv;

/** The ```sh blocks of examples/go/README.md, in order. */
const readmeBlocks = (): string[] =>
  [
    ...fs.readFileSync(path.join(repoRoot, "examples", "go", "README.md"), "utf8").matchAll(/```sh\n([\s\S]*?)```/g),
  ].map((m) => m[1]);

/** Runs a script as a user's shell would; asynchronously, so the API server in this process answers. */
function sh(script: string, extra: Record<string, string> = {}): Promise<{ code: number; output: string }> {
  const child = spawn("bash", ["-euo", "pipefail", "-c", script], {
    cwd: work,
    env: { ...env, ...extra },
    stdio: ["ignore", "pipe", "pipe"],
    timeout: 600_000,
  });
  let output = "";
  child.stdout.on("data", (d) => (output += d));
  child.stderr.on("data", (d) => (output += d));
  return new Promise((resolve) => child.on("close", (code) => resolve({ code: code ?? -1, output })));
}

/** The plain CLI v3.274.1: `pulumi` alone, no language host beside it. */
const plainCli = () => builtCli(pins.cliNewest);

beforeAll(async () => {
  api = await startApiServer({ token });
  work = fs.mkdtempSync(path.join(os.tmpdir(), "go-example-"));
  // The example and the SDK its go.mod replaces, laid out as in a clone; nothing built or installed.
  fs.cpSync(path.join(repoRoot, "examples", "go"), path.join(work, "examples", "go"), { recursive: true });
  fs.cpSync(path.join(repoRoot, "sdk", "go"), path.join(work, "sdk", "go"), { recursive: true });
  exampleDir = path.join(work, "examples", "go");
  const consumer = installConsumer();
  const tarball = fs.readdirSync(consumer).find((f) => f.endsWith(".tgz"))!;
  env = {
    ...process.env,
    PATH: [plainCli(), nodeBinDir(), process.env.PATH].join(path.delimiter),
    PULUMI_HOME: path.join(work, "home"),
    PULUMI_CONFIG_PASSPHRASE: "go-example-passphrase",
    PULUMI_SKIP_UPDATE_CHECK: "true",
    PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
    STORAGE_API_URL: api.url,
    STORAGE_USER_PKG: path.join(consumer, tarball),
  };
  for (const k of ["STORAGE_ACCESS_TOKEN", "PULUMI_BACKEND_URL", "STORAGE_USER_PLUGIN_DIR", "TENANTS_WORK_DIR"])
    delete env[k];
}, 600_000);
afterAll(async () => {
  await api?.close();
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

describe("examples/go: a Go service onboarding tenants (Automation API, CLI v3.274.1)", () => {
  test("the README's build, install and preview run as written, without a token, calling no API", async () => {
    const [setup] = readmeBlocks();
    const r = await sh(setup);
    expect(r.code, r.output).toBe(0);
    expect(r.output).toMatch(/\+\s+storage-user:index:StorageUser storage create/);
    expect(api.requests).toHaveLength(0);
    // A cold Go build cache compiles Pulumi's Go SDK first: minutes on a busy 2-core machine.
  }, 900_000);

  test("onboard, again, rotate, offboard: one user per tenant, envs handed over, 0 requests when nothing changes, users left named, no secret kept in clear", async () => {
    const [, lifecycle] = readmeBlocks();
    const r = await sh(
      `export STORAGE_USER_PLUGIN_DIR="$PWD/examples/go/plugins/node_modules/pulumi-storage-user/bin" PULUMI_BACKEND_URL="file://$PWD/examples/go/state"\n${lifecycle}`,
      { STORAGE_ACCESS_TOKEN: token },
    );
    expect(r.code, r.output).toBe(0);
    // 2 onboarded, 0 for the second onboard, 1 for the rotation: the API only creates.
    expect(api.requests.map((q) => q.method)).toEqual(["POST", "POST", "POST"]);
    const [acme, globex, acmeRotated] = api.users;
    expect([acme.Name, globex.Name, acmeRotated.Name]).toEqual(["acme-storage", "globex-storage", "acme-storage-r1"]);
    // What the caller was handed: each tenant's env, on every onboard and after the rotation.
    const handed = fs
      .readFileSync(path.join(exampleDir, "handed-over.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(handed.map((h) => [h.tenant, h.userId])).toEqual([
      ["acme", acme.Id],
      ["globex", globex.Id],
      ["acme", acme.Id],
      ["acme", acmeRotated.Id],
    ]);
    expect(handed[0].env.AWS_SECRET_ACCESS_KEY).toBe(acme.S3Connection.SecretKey);
    expect(handed[1].env.AWS_ACCESS_KEY_ID).toBe(globex.S3Connection.AccessKey);
    expect(handed[2].env).toEqual(handed[0].env);
    expect(handed[3].env.AWS_SECRET_ACCESS_KEY).toBe(acmeRotated.S3Connection.SecretKey);
    for (const u of [acme, globex, acmeRotated])
      expect(r.output).toContain(`[USER_LEFT_STACK] StorageUser '${u.Name}' (id ${u.Id}, on ${new URL(api.url).href})`);
    // The token and every credential: nowhere in state, history, backups, the stacks' config or the service's log.
    const needles = withEncodings([["the API token", token], ...api.users.flatMap(secretsOf)]);
    const kept = [
      ...filesUnder(path.join(exampleDir, "state")),
      ...filesUnder(path.join(exampleDir, "workspace")),
      ...filesUnder(path.join(work, "home")),
    ];
    expect(kept.length).toBeGreaterThan(5);
    expect(hits(kept, needles)).toEqual([]);
    // Its standard error and the commands' output: progress only (the hand-over went to the file).
    expect(hits([["the service's output", r.output]], needles)).toEqual([]);
    expect(fs.readFileSync(path.join(exampleDir, "workspace", "Pulumi.tenant-acme.yaml"), "utf8")).toMatch(
      /storage-user:accessToken:\n\s+secure:/,
    );
  });
});
