// The fault matrix: every way the create call can go wrong, through the real CLI against the
// local API. For every fault, either exactly one user exists on the server and the stack holds
// it (possibly as a recorded failure), or no user exists and the error says what to do.
//
// One stack (test/programs/users, one StorageUser named `<case>-0` per `pulumi up`) serves every
// case, and each case gets a fresh API server, pointed at through STORAGE_API_URL for that run
// only, so faults left in one server's queue can never reach another case and every count below
// is that case's own. Each up deletes the previous case's resource (a no-op on the API).
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import * as fs from "node:fs";
import * as net from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { ApiServer, Fault, startApiServer } from "../server/api-server";
import { RunResult, TestStack } from "../scripts/stack";

const token = `fault-token-${randomBytes(8).toString("hex")}`;
const TYPE = "pulumi-nodejs:dynamic/storage:StorageUser";
const credentialOutputs = ["credentials", "name", "password", "swift", "s3", "ftp", "env", "ftpUrl"];

let stack: TestStack;
let tlsDir: string;
const servers: ApiServer[] = [];

beforeAll(async () => {
  stack = await TestStack.create({ programDir: "test/programs/users", config: { "users:prefix": "unused" }, secrets: { "storage:accessToken": token } });
  tlsDir = fs.mkdtempSync(path.join(os.tmpdir(), "psu-tls-"));
  execFileSync(
    "openssl",
    ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"]
      .concat(["-keyout", path.join(tlsDir, "key.pem"), "-out", path.join(tlsDir, "cert.pem")]),
    { stdio: "ignore" },
  );
});

/** Every case's first run, for the summary printed at the end (docs/failure-modes.md). */
const observed: CaseRun[] = [];

afterAll(async () => {
  const rows = observed.map((run) => {
    const api = servers.find((s) => new URL(s.url).origin === new URL(run.baseUrl).origin);
    const code = run.up.code === 0 ? "ok" : (/\[([A-Z_]+)\]/.exec(run.up.output.slice(run.up.output.indexOf("Diagnostics:")))?.[1] ?? "?");
    const count = (n: number | undefined) => String(n ?? "-").padStart(2);
    return `${run.id.slice(0, 16).padEnd(16)} ${code.padEnd(18)} POSTs ${count(api?.createAttempts)}  requests ${count(api?.requests.length)}  users ${count(api?.users.length)}  state: ${run.resource?.id ?? "-"}${run.resource?.outputs.__failure ? ` (${run.resource.outputs.__failure.code})` : ""}`;
  });
  console.log(`fault matrix, observed (counts include the second up of recorded failures):\n${rows.join("\n")}`);
  await Promise.all(servers.map((s) => s.close()));
  await stack?.dispose();
  if (tlsDir) fs.rmSync(tlsDir, { recursive: true, force: true });
});

async function server(opts: { token?: string; tls?: boolean } = {}): Promise<ApiServer> {
  const s = await startApiServer({
    token: opts.token ?? token,
    ...(opts.tls ? { tls: { key: fs.readFileSync(path.join(tlsDir, "key.pem")), cert: fs.readFileSync(path.join(tlsDir, "cert.pem")) } } : {}),
  });
  servers.push(s);
  return s;
}

/** A loopback port with nothing listening on it. */
async function closedPort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, "127.0.0.1", r));
  const { port } = srv.address() as net.AddressInfo;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

interface CaseRun {
  id: string;
  baseUrl: string;
  userName: string;
  up: RunResult;
  /** The case's StorageUser in state, if any. */
  resource?: Record<string, any>;
}

/** One `pulumi up` with only the StorageUser `<id>-0` in the program, against `baseUrl`. */
async function upCase(id: string, baseUrl: string, opts: { createTimeout?: string; env?: Record<string, string> } = {}): Promise<CaseRun> {
  const up = await stack.up(["-c", `users:prefix=${id}`, "-c", `users:createTimeout=${opts.createTimeout ?? ""}`], {
    env: { STORAGE_API_URL: baseUrl, ...opts.env },
  });
  const run = { id, baseUrl, userName: `${id}-0`, up, resource: await stateOf(id) };
  observed.push(run);
  return run;
}

/** The case's resource as the file backend stores it (read directly: no CLI call per look). */
async function stateOf(id: string): Promise<Record<string, any> | undefined> {
  const resources: Array<Record<string, any>> = JSON.parse(stack.stateFileText()).checkpoint.latest?.resources ?? [];
  return resources.find((r) => r.type === TYPE && r.urn.endsWith(`::${id}-0`));
}

const named = (api: ApiServer, userName: string) => api.users.filter((u) => u.Name === userName);

/** Success: exactly one user on the server, in state under its Id, with credentials. */
function expectCreated(run: CaseRun, api: ApiServer) {
  expect(run.up.code, run.up.output).toBe(0);
  const users = named(api, run.userName);
  expect(users).toHaveLength(1);
  expect(api.users).toHaveLength(1);
  expect(run.resource?.id).toBe(String(users[0].Id));
  expect(run.resource?.outputs.__failure).toBeUndefined();
  expect(run.resource?.outputs.secrets).toEqual(expect.objectContaining({ ciphertext: expect.any(String) }));
}

/** A definite refusal: the code in the output, nothing on the server, nothing in state. */
function expectRefused(run: CaseRun, api: ApiServer | undefined, code: string) {
  expect(run.up.code, run.up.output).not.toBe(0);
  expect(run.up.output).toContain(`[${code}]`);
  expect(run.up.output).toContain("nothing was created");
  if (api) expect(named(api, run.userName)).toHaveLength(0);
  expect(run.resource, "a refused create must not be recorded").toBeUndefined();
}

/**
 * Sent without a usable verdict: recorded in state (id `unconfirmed-…` or the real Id), with
 * the failure and no credentials; the next up makes no POST and repeats the guidance.
 */
async function expectRecorded(run: CaseRun, api: ApiServer, code: "OUTCOME_UNKNOWN" | "RESPONSE_UNUSABLE", usersOnServer: 0 | 1) {
  expect(run.up.code, run.up.output).not.toBe(0);
  expect(run.up.output).toContain(`[${code}]`);
  expect(run.resource, "a create that may have made a user must be recorded").toBeDefined();
  // The way out names this resource, ready to paste.
  const ways = [`pulumi up --replace '${run.resource!.urn}'`, `pulumi state delete '${run.resource!.urn}'`];
  for (const way of ways) expect(run.up.output).toContain(way);
  const users = named(api, run.userName);
  expect(users).toHaveLength(usersOnServer);
  if (code === "RESPONSE_UNUSABLE") expect(run.resource!.id).toBe(String(users[0].Id));
  else expect(run.resource!.id).toMatch(/^unconfirmed-/);
  expect(run.resource!.outputs.__failure).toMatchObject({ code });
  for (const k of credentialOutputs) expect(run.resource!.outputs, `recorded failure holds no ${k}`).not.toHaveProperty(k);

  const posts = api.requests.length;
  const again = await stack.up([], { env: { STORAGE_API_URL: api.url } });
  expect(again.code, again.output).not.toBe(0);
  expect(again.output).toContain(`[${code}]`);
  for (const way of ways) expect(again.output).toContain(way);
  expect(api.requests.length, "the next up must not POST again").toBe(posts);
  expect(named(api, run.userName)).toHaveLength(usersOnServer);
  expect((await stateOf(run.id))?.id).toBe(run.resource!.id);
}

describe("retried until it succeeds: exactly one user, in state under its Id", () => {
  test.each<[string, string, Fault[], number]>([
    ["429 with Retry-After", "ok429ra", [{ kind: "status", status: 429, retryAfter: "1" }], 2],
    ["429 without Retry-After", "ok429", [{ kind: "status", status: 429 }], 2],
    ["503 three times (Retry-After: 0)", "ok503", [1, 2, 3].map(() => ({ kind: "status", status: 503, retryAfter: "0" }) as Fault), 4],
    ["same-origin 307 (absolute Location)", "ok307", [{ kind: "redirect", status: 307, location: "SELF/storage/users" }], 2],
    ["same-origin 308 (relative Location)", "ok308", [{ kind: "redirect", status: 308, location: "/storage/users" }], 2],
  ])("%s", async (_label, id, faults, posts) => {
    const api = await server();
    api.inject(...faults.map((f) => (f.kind === "redirect" ? { ...f, location: f.location.replace("SELF", api.url) } : f)));
    const run = await upCase(id, api.url);
    expectCreated(run, api);
    expect(api.createAttempts).toBe(posts);
    expect(api.requests.every((r) => r.authorized)).toBe(true);
  });

  test("self-signed HTTPS with NODE_EXTRA_CA_CERTS pointing at its certificate", async () => {
    const api = await server({ tls: true });
    const run = await upCase("tlsok", api.url, { env: { NODE_EXTRA_CA_CERTS: path.join(tlsDir, "cert.pem") } });
    expectCreated(run, api);
    expect(api.createAttempts).toBe(1);
  });
});

describe("429/503 that never end: [RETRIES_EXHAUSTED], nothing created, nothing recorded", () => {
  test("503 twenty times: exactly 20 attempts, then the error", async () => {
    const api = await server();
    // A 21st attempt would find no fault left and create the user: the count would show it.
    api.inject(...Array.from({ length: 20 }, () => ({ kind: "status", status: 503, retryAfter: "0" }) as Fault));
    const run = await upCase("exh503", api.url);
    expectRefused(run, api, "RETRIES_EXHAUSTED");
    expect(run.up.output).toContain("after 20 attempt(s)");
    expect(api.createAttempts).toBe(20);
    expect(api.users).toHaveLength(0);
  });

  test("429 with Retry-After: 1 until customTimeouts.create (3s) runs out", async () => {
    const api = await server();
    api.inject(...Array.from({ length: 15 }, () => ({ kind: "status", status: 429, retryAfter: "1" }) as Fault));
    const run = await upCase("exh429", api.url, { createTimeout: "3s" });
    expectRefused(run, api, "RETRIES_EXHAUSTED");
    expect(run.up.output).toContain("customTimeouts.create");
    // The budget, not the fault queue, ended it: faults are left over.
    expect(api.createAttempts).toBeGreaterThanOrEqual(1);
    expect(api.createAttempts).toBeLessThan(15);
    expect(api.users).toHaveLength(0);
  });
});

describe("definite refusals: the code and what to do, nothing created, nothing recorded", () => {
  test("401 (injected)", async () => {
    const api = await server();
    api.inject({ kind: "status", status: 401, body: JSON.stringify({ error: { message: "token expired" } }) });
    const run = await upCase("r401", api.url);
    expectRefused(run, api, "UNAUTHORIZED");
    expect(run.up.output).toContain("HTTP 401: token expired");
    expect(run.up.output).toContain("storage:accessToken");
    expect(api.createAttempts).toBe(1);
  });

  test("403: the server has another token", async () => {
    const api = await server({ token: "the-servers-other-token" });
    const run = await upCase("r403", api.url);
    expectRefused(run, api, "UNAUTHORIZED");
    expect(run.up.output).toContain("HTTP 403: the access token is not valid");
    expect(api.createAttempts).toBe(1);
    expect(api.requests[0].authorized).toBe(false);
    expect(api.users).toHaveLength(0);
  });

  test("404: a base URL that is not the API root", async () => {
    const api = await server();
    const run = await upCase("r404", `${api.url}/v2`);
    expectRefused(run, api, "ENDPOINT_NOT_FOUND");
    expect(run.up.output).toContain(`POST ${api.url}/v2/storage/users answered HTTP 404`);
    expect(api.requests).toHaveLength(1);
    expect(api.users).toHaveLength(0);
  });

  test("405 (injected)", async () => {
    const api = await server();
    api.inject({ kind: "status", status: 405 });
    const run = await upCase("r405", api.url);
    expectRefused(run, api, "ENDPOINT_NOT_FOUND");
    expect(api.createAttempts).toBe(1);
  });

  test("409: the name is taken on the service", async () => {
    const api = await server();
    const res = await fetch(`${api.url}/storage/users`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: token },
      body: JSON.stringify({ UserName: "r409-0", PersistPassword: 0 }),
    });
    expect(res.status).toBe(200);
    const run = await upCase("r409", api.url);
    expect(run.up.code).not.toBe(0);
    expect(run.up.output).toContain("[NAME_TAKEN] the storage API already has a user named 'r409-0'");
    expect(named(api, "r409-0")).toHaveLength(1); // the one made beforehand, not a second
    expect(api.createAttempts).toBe(2);
    expect(run.resource).toBeUndefined();
  });

  test("400: a userName the API finds too long (the provider allows up to 256)", async () => {
    const api = await server();
    const run = await upCase(`r400${"x".repeat(140)}`, api.url);
    expectRefused(run, api, "REJECTED");
    expect(run.up.output).toContain("HTTP 400: UserName must be at most 128 characters without control characters");
    expect(api.createAttempts).toBe(1);
    expect(api.users).toHaveLength(0);
  });

  test("422 (injected) quotes the API's message", async () => {
    const api = await server();
    api.inject({ kind: "status", status: 422, body: JSON.stringify({ error: { code: "quota", message: "user quota of the account reached" } }) });
    const run = await upCase("r422", api.url);
    expectRefused(run, api, "REJECTED");
    expect(run.up.output).toContain("HTTP 422: user quota of the account reached");
    expect(api.createAttempts).toBe(1);
  });

  test.each([301, 302, 303])("same-origin %i (would turn the POST into a GET)", async (status) => {
    const api = await server();
    api.inject({ kind: "redirect", status, location: `${api.url}/storage/users` });
    const run = await upCase(`redir${status}`, api.url);
    expectRefused(run, api, "REDIRECT_REFUSED");
    expect(run.up.output).toContain("it would turn the POST into a GET");
    expect(api.createAttempts).toBe(1);
    expect(api.users).toHaveLength(0);
  });

  test("307 to another origin: the other server receives nothing", async () => {
    const api = await server();
    const other = await server();
    api.inject({ kind: "redirect", status: 307, location: `${other.url}/storage/users` });
    const run = await upCase("crossorigin", api.url);
    expectRefused(run, api, "REDIRECT_REFUSED");
    expect(run.up.output).toContain("another origin");
    expect(other.requests).toHaveLength(0);
    expect(other.users).toHaveLength(0);
    expect(api.createAttempts).toBe(1);
  });

  test("connection refused (a closed port)", async () => {
    const port = await closedPort();
    const run = await upCase("refused", `http://127.0.0.1:${port}`);
    expectRefused(run, undefined, "UNREACHABLE");
    expect(run.up.output).toContain("ECONNREFUSED");
    expect(run.up.output).toContain("after 4 attempt(s)");
  });

  test("TLS: a self-signed certificate without NODE_EXTRA_CA_CERTS", async () => {
    const api = await server({ tls: true });
    const run = await upCase("tlsbad", api.url);
    expectRefused(run, api, "UNREACHABLE");
    expect(run.up.output).toContain("TLS handshake failed");
    expect(run.up.output).toContain("NODE_EXTRA_CA_CERTS");
    expect(api.requests).toHaveLength(0);
    expect(api.users).toHaveLength(0);
  });
});

describe("sent, no verdict: [OUTCOME_UNKNOWN], recorded as unconfirmed, never POSTed again", () => {
  test.each<[string, string, Fault, 0 | 1, string]>([
    ["500", "unk500", { kind: "status", status: 500 }, 0, "HTTP 500: injected 500"],
    ["502 from a gateway after the create", "unk502", { kind: "status", status: 502, create: true }, 1, "HTTP 502"],
    ["504 from a gateway after the create", "unk504", { kind: "status", status: 504, create: true }, 1, "HTTP 504"],
    ["connection dropped before the create", "unkdrop0", { kind: "drop", after: "nothing" }, 0, "no verdict came back"],
    ["connection dropped after the create", "unkdrop1", { kind: "drop", after: "create" }, 1, "no verdict came back"],
    ["garbled 200 without an Id", "unkgarbled", { kind: "garbled", withId: false }, 1, "the body is not valid JSON"],
  ])("%s", async (_label, id, fault, users, detail) => {
    const api = await server();
    api.inject(fault);
    const run = await upCase(id, api.url);
    expect(run.up.output).toContain(detail);
    expect(api.createAttempts).toBe(1);
    await expectRecorded(run, api, "OUTCOME_UNKNOWN", users);
    expect(api.users).toHaveLength(users);
  });

  test("an answer slower than customTimeouts.create (3s, server takes 10s)", async () => {
    const api = await server();
    api.inject({ kind: "slow", ms: 10_000 });
    const run = await upCase("slow", api.url, { createTimeout: "3s" });
    expect(api.createAttempts).toBe(1);
    await expectRecorded(run, api, "OUTCOME_UNKNOWN", 1);
  });
});

describe("2xx but unusable: [RESPONSE_UNUSABLE] naming the problem, recorded under the user's Id", () => {
  test.each<[string, string, Fault, string]>([
    ["garbled 200 with the Id", "badgarbled", { kind: "garbled", withId: true }, "the body is not valid JSON"],
    ["S3Connection.SecretKey missing", "badnos3key", { kind: "incomplete", omit: ["S3Connection.SecretKey"] }, "S3Connection.SecretKey is missing"],
    ["Password and FtpConnection missing", "badnoftp", { kind: "incomplete", omit: ["Password", "FtpConnection"] }, "Password is missing; FtpConnection is missing"],
    ["a 2 MiB body", "badhuge", { kind: "oversized", bytes: 2 * 1024 * 1024 }, "the body is larger than 1048576 bytes"],
  ])("%s", async (_label, id, fault, problem) => {
    const api = await server();
    api.inject(fault);
    const run = await upCase(id, api.url);
    expect(run.up.output).toContain(problem);
    expect(run.up.output).toContain(`storage user ${api.users[0]?.Id}`);
    expect(api.createAttempts).toBe(1);
    await expectRecorded(run, api, "RESPONSE_UNUSABLE", 1);
    expect(api.users).toHaveLength(1);
  });
});

describe("the guidance works", () => {
  test("`pulumi up --replace <urn>` creates one new user; `pulumi state delete <urn>` forgets it", async () => {
    const api = await server();
    api.inject({ kind: "status", status: 500 });
    const run = await upCase("guided", api.url);
    await expectRecorded(run, api, "OUTCOME_UNKNOWN", 0);
    const urn = run.resource!.urn as string;

    const replaced = await stack.up(["--replace", urn], { env: { STORAGE_API_URL: api.url } });
    expect(replaced.code, replaced.output).toBe(0);
    expect(api.createAttempts).toBe(2);
    expect(named(api, "guided-0")).toHaveLength(1);
    const now = await stateOf("guided");
    expect(now?.id).toBe(String(api.users[0].Id));
    expect(now?.outputs.__failure).toBeUndefined();

    const del = await stack.run(["state", "delete", urn, "--yes"]);
    expect(del.code, del.output).toBe(0);
    expect(await stateOf("guided")).toBeUndefined();
    expect(api.createAttempts).toBe(2);
  });
});
