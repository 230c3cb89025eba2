// StorageUser from Go: a Go service using the Automation API with an inline program on the
// generated SDK (sdk/go, through test/go/automation), the plain CLI v3.274.1, the packed
// package's executable plugin named in the project's plugins.providers, and settings from stack
// config only. The inline program is served by the Go process itself: no Go language host.
import { execFileSync, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { ApiServer, startApiServer } from "../../server/api-server";
import { installConsumer } from "../../scripts/consumer";
import { builtCli, nodeBinDir, pins, repoRoot } from "../../scripts/toolchain";
import { filesUnder, hits, secretsOf, withEncodings } from "../support/secrets";

const token = "go-token-" + Math.random().toString(36).slice(2, 12);
const euToken = "go-eu-token-" + Math.random().toString(36).slice(2, 12);
let api: ApiServer;
/** A second storage service, for explicit providers. */
let eu: ApiServer;
let work: string;
let service: string;
let pluginDir: string;
let env: NodeJS.ProcessEnv;

type Output = { value: unknown; secret: boolean };
type Result = {
  ok: boolean;
  error?: string;
  log: string;
  changes?: Record<string, number>;
  outputs?: Record<string, Output>;
};
type Request = {
  op: "preview" | "up" | "destroy";
  config?: Record<string, { value: string; secret: boolean }>;
  removeConfig?: string[];
  users?: Array<{ name: string; userName?: string; trigger?: string; provider?: string }>;
  providers?: Array<{ name: string; baseUrl: string; token: string }>;
  replace?: string[];
};

/** One request to the Go service, on its standard input (the token never on a command line). */
function call(req: Request): Promise<Result> {
  const child = spawn(service, [], { cwd: work, env, stdio: ["pipe", "pipe", "pipe"], timeout: 900_000 });
  let out = "";
  let err = "";
  child.stdout.on("data", (d) => (out += d));
  child.stderr.on("data", (d) => (err += d));
  child.stdin.end(JSON.stringify({ stack: "dev", pluginDir, workDir: path.join(work, "project"), ...req }));
  return new Promise((resolve, reject) =>
    child.on("close", (code) => {
      try {
        resolve(JSON.parse(out) as Result);
      } catch {
        reject(new Error(`the Go service exited ${code}: ${err}${out}`));
      }
    }),
  );
}

const baseUrl = () => ({ "storage-user:baseUrl": { value: api.url, secret: false } });

/** The plain CLI v3.274.1: `pulumi` alone, no language host beside it. */
const plainCli = () => builtCli(pins.cliNewest);

beforeAll(async () => {
  api = await startApiServer({ token });
  eu = await startApiServer({ token: euToken });
  work = fs.mkdtempSync(path.join(os.tmpdir(), "go-automation-"));
  for (const d of ["state", "home", "tmp", "project"]) fs.mkdirSync(path.join(work, d));
  // The package as users install it: its executable plugin, with the run bit npm gives bin entries.
  pluginDir = path.join(installConsumer(), "node_modules", "pulumi-storage-user", "bin");
  service = path.join(work, "automation");
  execFileSync("go", ["build", "-o", service, "./automation"], {
    cwd: path.join(repoRoot, "test", "go"),
    stdio: ["ignore", "inherit", "inherit"],
  });
  env = {
    ...process.env,
    PATH: [plainCli(), nodeBinDir(), process.env.PATH].join(path.delimiter),
    PULUMI_HOME: path.join(work, "home"),
    PULUMI_BACKEND_URL: `file://${path.join(work, "state")}`,
    PULUMI_CONFIG_PASSPHRASE: "go-test-passphrase",
    PULUMI_SKIP_UPDATE_CHECK: "true",
    PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
    // The Automation API's workspace of an inline program is a temp dir: kept here, searched too.
    TMPDIR: path.join(work, "tmp"),
  };
  for (const k of Object.keys(env)) if (k.startsWith("STORAGE_")) delete env[k];
}, 900_000);
afterAll(async () => {
  await api?.close();
  await eu?.close();
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

describe("StorageUser from a Go Automation API service (CLI v3.274.1, stack config only)", () => {
  test("the plugin is executable in the installed package; the CLI is the plain v3.274.1 with no language host on PATH", () => {
    expect(fs.statSync(path.join(pluginDir, "pulumi-resource-storage-user")).mode & 0o111).not.toBe(0);
    expect(execFileSync("pulumi", ["version"], { env, encoding: "utf8" }).trim()).toBe("v3.274.1");
    const hosts = env.PATH!.split(path.delimiter).flatMap((d) =>
      fs.existsSync(d)
        ? fs
            .readdirSync(d)
            .filter((f) => f.startsWith("pulumi-language-"))
            .map((f) => path.join(d, f))
        : [],
    );
    expect(hosts).toEqual([]);
  });

  test("preview needs no token and sends no request", async () => {
    const r = await call({ op: "preview", config: baseUrl(), users: [{ name: "app", trigger: "v1" }] });
    expect(r.ok, r.error).toBe(true);
    // The stack and the user.
    expect(r.changes?.create).toBe(2);
    expect(api.requests).toHaveLength(0);
  });

  test("a token in plain stack config, or a misspelt key, is refused, naming the key and never the value", async () => {
    const r = await call({
      op: "preview",
      config: { ...baseUrl(), "storage-user:accessToken": { value: token, secret: false } },
      users: [{ name: "app", trigger: "v1" }],
    });
    expect(r.ok).toBe(false);
    expect(r.error).toContain(
      "[CONFIG_NOT_SECRET] storage-user:accessToken is set in plain text in the stack configuration (Pulumi.dev.yaml, or a provider argument); Pulumi would write it unencrypted into the state, its history and backups",
    );
    expect(r.error).toContain(
      "`pulumi config set --secret storage-user:accessToken` and enter the token at its prompt (or pipe it in)",
    );
    expect(r.error).not.toContain(token);
    // A misspelt key is refused too, even secret: it is no setting, and a plain one would sit in the state.
    const typo = await call({
      op: "preview",
      removeConfig: ["storage-user:accessToken"],
      config: { "storage-user:accessTokn": { value: token, secret: true } },
      users: [{ name: "app", trigger: "v1" }],
    });
    expect(typo.ok).toBe(false);
    expect(typo.error).toContain(
      '[CONFIG_INVALID] "storage-user:accessTokn" is not a setting of the storage-user provider, which reads only storage-user:baseUrl and storage-user:accessToken',
    );
    expect(api.requests).toHaveLength(0);
    expect(
      (
        await call({
          op: "preview",
          removeConfig: ["storage-user:accessTokn"],
          users: [{ name: "app", trigger: "v1" }],
        })
      ).ok,
    ).toBe(true);
  });

  test("up creates the user; Go sees the credentials secret and the ids plain; no secret in state, history, backups or logs", async () => {
    const r = await call({
      op: "up",
      config: { ...baseUrl(), "storage-user:accessToken": { value: token, secret: true } },
      users: [{ name: "app", trigger: "v1" }],
    });
    expect(r.ok, r.error ?? r.log).toBe(true);
    expect(api.users).toHaveLength(1);
    const [u] = api.users;
    const out = r.outputs!;
    expect(out["app.userId"]).toEqual({ value: u.Id, secret: false });
    expect(out["app.s3Endpoint"]).toEqual({ value: u.S3Connection.Endpoint, secret: false });
    for (const k of ["app.s3", "app.env", "app.credentials", "app.password"]) expect(out[k].secret, k).toBe(true);
    expect((out["app.s3"].value as Record<string, string>).secretKey).toBe(u.S3Connection.SecretKey);
    expect((out["app.env"].value as Record<string, string>).AWS_SECRET_ACCESS_KEY).toBe(u.S3Connection.SecretKey);
    expect((out["app.credentials"].value as { ftp: { password: string } }).ftp.password).toBe(u.FtpConnection.Password);
    expect(typeof (out["app.tasks"].value as Array<{ progressPercent: unknown }>)[0].progressPercent).toBe("number");
    const needles = withEncodings([["the API token", token], ...secretsOf(u)]);
    expect(
      hits(
        [
          ...filesUnder(path.join(work, "state")),
          ...filesUnder(path.join(work, "home")),
          ...filesUnder(path.join(work, "tmp")),
          ...filesUnder(path.join(work, "project")),
        ],
        needles,
      ),
    ).toEqual([]);
    expect(hits([["up log", r.log]], needles)).toEqual([]);
  });

  test("a second up changes nothing and sends 0 requests", async () => {
    const before = api.requests.length;
    const r = await call({ op: "up", users: [{ name: "app", trigger: "v1" }] });
    expect(r.ok, r.error).toBe(true);
    expect(Object.keys(r.changes ?? {}).filter((k) => k !== "same")).toEqual([]);
    expect(api.requests.length).toBe(before);
  });

  test("rotation by a new ReplacementTrigger: a new user, the old one named as left on the service", async () => {
    const [old] = api.users;
    const r = await call({ op: "up", users: [{ name: "app", trigger: "v2" }] });
    expect(r.ok, r.error ?? r.log).toBe(true);
    expect(api.users).toHaveLength(2);
    expect(r.log).toContain(
      `[USER_LEFT_STACK] StorageUser '${old.Name}' (id ${old.Id}, on ${new URL(api.url).href}) left the stack but still exists on the storage service`,
    );
    expect(r.outputs!["app.userId"].value).toBe(api.users[1].Id);
  });

  test("bad input is refused at preview with the TypeScript resource's message, before any request", async () => {
    const before = api.requests.length;
    const r = await call({
      op: "preview",
      users: [
        { name: "app", trigger: "v2" },
        { name: "bad", userName: " app" },
      ],
    });
    expect(r.ok).toBe(false);
    expect(r.error).toContain(
      `storage-user:index:StorageUser resource 'bad': property userName value { app} has a problem: must not start or end with whitespace: use "app"`,
    );
    expect(api.requests.length).toBe(before);
  });

  test("several services: an explicit provider per service, its token secret, users created on their own service", async () => {
    const before = api.requests.length;
    const providers = [{ name: "eu", baseUrl: eu.url, token: euToken }];
    const users = [
      { name: "app", trigger: "v2" },
      { name: "eu", provider: "eu" },
    ];
    const r = await call({ op: "up", users, providers });
    expect(r.ok, r.error ?? r.log).toBe(true);
    expect(api.requests.length).toBe(before);
    expect(eu.users).toHaveLength(1);
    expect(eu.requests.every((q) => q.authorized)).toBe(true);
    expect(r.outputs!["eu.userId"]).toEqual({ value: eu.users[0].Id, secret: false });
    expect(r.outputs!["eu.s3"].secret).toBe(true);
    const needles = withEncodings([["the eu token", euToken], ...secretsOf(eu.users[0])]);
    expect(
      hits(
        [...filesUnder(path.join(work, "state")), ...filesUnder(path.join(work, "project")), ["up log", r.log]],
        needles,
      ),
    ).toEqual([]);
    // A second up: nothing changes on either service.
    const again = await call({ op: "up", users, providers });
    expect(again.ok, again.error).toBe(true);
    expect([api.requests.length, eu.requests.length]).toEqual([before, 1]);
  });

  test("destroy names every user left on its service", async () => {
    const r = await call({ op: "destroy", users: [] });
    expect(r.ok, r.error).toBe(true);
    const current = api.users[1];
    expect(r.log).toContain(
      `[USER_LEFT_STACK] StorageUser '${current.Name}' (id ${current.Id}, on ${new URL(api.url).href})`,
    );
    expect(r.log).toContain(
      `[USER_LEFT_STACK] StorageUser '${eu.users[0].Name}' (id ${eu.users[0].Id}, on ${new URL(eu.url).href})`,
    );
  });
});
