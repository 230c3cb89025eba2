// The fault matrix through the real CLI against the local API: one case of each way a create can
// end (retried to success, retries exhausted by customTimeouts.create, refused, sent without a
// verdict, answered unusably) and what only the CLI run shows: the plugin's process environment
// (NODE_EXTRA_CA_CERTS), customTimeouts.create reaching the budget, what the stack records and
// that the next up sends nothing, and that the guidance works. Either exactly one user exists on
// the server and the stack holds it (possibly as a recorded failure), or no user exists and the
// error says what to do. Every other status, redirect and body is test/unit/create-client.test.ts's,
// in-process (the same code the plugin runs); docs/testing.md lists which case moved where.
//
// One stack (test/programs/users, one StorageUser named `<case>-0` per `pulumi up`) serves every
// case, and each case gets a fresh API server, pointed at through STORAGE_API_URL for that run
// only, so faults left in one server's queue can never reach another case and every count below
// is that case's own. Each up deletes the previous case's resource (a no-op on the API).
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { ApiServer, Fault, startApiServer } from "../../server/api-server";
import { RunResult, TestStack } from "../../scripts/stack";

const token = `fault-token-${randomBytes(8).toString("hex")}`;
const TYPE = "pulumi-nodejs:dynamic/storage:StorageUser";
const credentialOutputs = ["credentials", "name", "password", "swift", "s3", "ftp", "env", "ftpUrl"];

let stack: TestStack;
let tlsDir: string;
const servers: ApiServer[] = [];

beforeAll(async () => {
  stack = await TestStack.create({
    programDir: "test/programs/users",
    config: { "users:prefix": "unused" },
    secrets: { "storage:accessToken": token },
  });
  tlsDir = fs.mkdtempSync(path.join(os.tmpdir(), "psu-tls-"));
  execFileSync(
    "openssl",
    [
      "req",
      "-x509",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-days",
      "1",
      "-subj",
      "/CN=127.0.0.1",
      "-addext",
      "subjectAltName=IP:127.0.0.1",
    ].concat(["-keyout", path.join(tlsDir, "key.pem"), "-out", path.join(tlsDir, "cert.pem")]),
    { stdio: "ignore" },
  );
});

afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
  await stack?.dispose();
  if (tlsDir) fs.rmSync(tlsDir, { recursive: true, force: true });
});

async function server(opts: { token?: string; tls?: boolean } = {}): Promise<ApiServer> {
  const s = await startApiServer({
    token: opts.token ?? token,
    ...(opts.tls
      ? {
          tls: {
            key: fs.readFileSync(path.join(tlsDir, "key.pem")),
            cert: fs.readFileSync(path.join(tlsDir, "cert.pem")),
          },
        }
      : {}),
  });
  servers.push(s);
  return s;
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
async function upCase(
  id: string,
  baseUrl: string,
  opts: { createTimeout?: string; env?: Record<string, string> } = {},
): Promise<CaseRun> {
  const up = await stack.up(["-c", `users:prefix=${id}`, "-c", `users:createTimeout=${opts.createTimeout ?? ""}`], {
    env: { STORAGE_API_URL: baseUrl, ...opts.env },
  });
  return { id, baseUrl, userName: `${id}-0`, up, resource: await stateOf(id) };
}

/** The case's resource as state records it. */
async function stateOf(id: string): Promise<Record<string, any> | undefined> {
  return (await stack.resources(TYPE)).find((r) => r.urn.endsWith(`::${id}-0`));
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
 * the failure and no credentials; the next up makes no POST and repeats the guidance. That next
 * up runs once per recorded shape: an `unconfirmed-…` record in "the guidance works" (500), a
 * real Id in the unusable answer's case; `nextUp: false` leaves it out of the other cases.
 */
async function expectRecorded(
  run: CaseRun,
  api: ApiServer,
  code: "OUTCOME_UNKNOWN" | "RESPONSE_UNUSABLE",
  usersOnServer: 0 | 1,
  { nextUp = true } = {},
) {
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
  for (const k of credentialOutputs)
    expect(run.resource!.outputs, `recorded failure holds no ${k}`).not.toHaveProperty(k);
  if (!nextUp) return;

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
    [
      "503 three times (Retry-After: 0)",
      "ok503",
      [1, 2, 3].map(() => ({ kind: "status", status: 503, retryAfter: "0" })),
      4,
    ],
  ])("%s", async (_label, id, faults, posts) => {
    const api = await server();
    api.inject(
      ...faults.map((f) => (f.kind === "redirect" ? { ...f, location: f.location.replace("SELF", api.url) } : f)),
    );
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
  test("429 with Retry-After: 1 until customTimeouts.create (3s) runs out", async () => {
    const api = await server();
    api.inject(...Array.from({ length: 15 }, () => ({ kind: "status" as const, status: 429, retryAfter: "1" })));
    const run = await upCase("exh429", api.url, { createTimeout: "3s" });
    expectRefused(run, api, "RETRIES_EXHAUSTED");
    expect(run.up.output).toContain("customTimeouts.create");
    // The budget, not the fault queue, ended it: faults are left over.
    expect(api.createAttempts).toBeGreaterThanOrEqual(1);
    expect(api.createAttempts).toBeLessThan(15);
    expect(api.users).toHaveLength(0);
  });
});

describe("refused: the code and what to do, nothing created, nothing recorded", () => {
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

describe("sent, no verdict: [OUTCOME_UNKNOWN], recorded as unconfirmed (never POSTed again: the guidance works, below)", () => {
  test.each<[string, string, Fault, 0 | 1, string]>([
    // 500 with no user made is "the guidance works" below.
    ["connection dropped after the create", "unkdrop1", { kind: "drop", after: "create" }, 1, "no verdict came back"],
  ])("%s", async (_label, id, fault, users, detail) => {
    const api = await server();
    api.inject(fault);
    const run = await upCase(id, api.url);
    expect(run.up.output).toContain(detail);
    expect(api.createAttempts).toBe(1);
    await expectRecorded(run, api, "OUTCOME_UNKNOWN", users, { nextUp: false });
    expect(api.users).toHaveLength(users);
  });

  test("an answer slower than customTimeouts.create (3s, server takes 10s)", async () => {
    const api = await server();
    api.inject({ kind: "slow", ms: 10_000 });
    const run = await upCase("slow", api.url, { createTimeout: "3s" });
    expect(api.createAttempts).toBe(1);
    await expectRecorded(run, api, "OUTCOME_UNKNOWN", 1, { nextUp: false });
  });
});

describe("2xx but unusable: [RESPONSE_UNUSABLE] naming the problem, recorded under the user's Id", () => {
  test.each<[string, string, Fault, string]>([
    [
      "S3Connection.SecretKey missing",
      "badnos3key",
      { kind: "incomplete", omit: ["S3Connection.SecretKey"] },
      "S3Connection.SecretKey is missing",
    ],
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
  test("500: `pulumi up --replace <urn>` creates one new user; `pulumi state delete <urn>` forgets it", async () => {
    const api = await server();
    api.inject({ kind: "status", status: 500 });
    const run = await upCase("guided", api.url);
    expect(run.up.output).toContain("HTTP 500: injected 500");
    expect(api.createAttempts).toBe(1);
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
