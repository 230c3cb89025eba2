// How a create ends through the real CLI, one case of each way, and what only a CLI run shows: the
// plugin's environment (NODE_EXTRA_CA_CERTS, proxies), customTimeouts.create, what the stack records,
// that the next up sends nothing, that the guidance works. Every other status, redirect and body is
// test/unit/create.test.ts's. One stack; each case an API server of its own, so counts are its own.
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import * as fs from "node:fs";
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import * as net from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { ApiServer, startApiServer } from "../../server/api-server";
import { RunResult, TestStack } from "../../scripts/stack";
import { failed, ok } from "../support/cli-project";

const token = `fault-token-${randomBytes(8).toString("hex")}`;
const TYPE = "pulumi-nodejs:dynamic/storage:StorageUser";
let stack: TestStack;
let tls: { key: Buffer; cert: Buffer; certFile: string };
let tmp: string;
const servers: ApiServer[] = [];

beforeAll(async () => {
  stack = await TestStack.create({
    programDir: "test/programs/users",
    config: { "users:prefix": "unused" },
    secrets: { "storage:accessToken": token },
  });
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "psu-tls-"));
  const [keyFile, certFile] = [path.join(tmp, "key.pem"), path.join(tmp, "cert.pem")];
  const subject = ["-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"];
  execFileSync(
    "openssl",
    ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", ...subject, "-keyout", keyFile, "-out", certFile],
    { stdio: "ignore" },
  );
  tls = { key: fs.readFileSync(keyFile), cert: fs.readFileSync(certFile), certFile };
});
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
  await stack?.dispose();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

async function server(withTls = false): Promise<ApiServer> {
  const s = await startApiServer({ token, ...(withTls ? { tls: { key: tls.key, cert: tls.cert } } : {}) });
  servers.push(s);
  return s;
}

/** A case's up, and its StorageUser in state, if any. */
type CaseRun = { userName: string; up: RunResult; resource?: Record<string, any> };
const stateOf = async (id: string) => (await stack.resources(TYPE)).find((r) => r.urn.endsWith(`::${id}-0`));
const named = (api: ApiServer, userName: string) => api.users.filter((u) => u.Name === userName);

/** One `pulumi up` with only the StorageUser `<id>-0` in the program, against `baseUrl`. */
async function upCase(id: string, baseUrl: string, opts: { createTimeout?: string; env?: object } = {}) {
  const config = ["-c", `users:prefix=${id}`, "-c", `users:createTimeout=${opts.createTimeout ?? ""}`];
  const up = await stack.up(config, { env: { STORAGE_API_URL: baseUrl, ...opts.env } });
  return { userName: `${id}-0`, up, resource: await stateOf(id) };
}

/** Success: exactly one user on the server, in state under its Id, with credentials. */
function expectCreated(run: CaseRun, api: ApiServer) {
  expect(run.up.code, run.up.output).toBe(0);
  expect(api.users.map((u) => u.Name)).toEqual([run.userName]);
  expect(run.resource?.id).toBe(String(api.users[0].Id));
  expect(run.resource?.outputs.__failure).toBeUndefined();
  expect(run.resource?.outputs.secrets).toHaveProperty("ciphertext");
}

/** A definite refusal: the code in the output, nothing on the server, nothing in state. */
function expectRefused(run: CaseRun, api: ApiServer, code: string) {
  expect(run.up.code, run.up.output).not.toBe(0);
  expect(run.up.output).toContain(`[${code}]`);
  expect(run.up.output).toContain("nothing was created");
  expect(api.users).toHaveLength(0);
  expect(run.resource, "a refused create must not be recorded").toBeUndefined();
}

/**
 * Sent without a usable verdict: recorded in state (id `unconfirmed-…` or the real Id) with the
 * failure and no credentials, the way out named. `nextUp`: the next up makes no POST and repeats the
 * guidance (once per recorded shape: the unusable answer's real Id, and the guidance's 500).
 */
async function expectRecorded(run: CaseRun, api: ApiServer, code: string, usersOnServer: 0 | 1, nextUp = false) {
  expect(run.up.code, run.up.output).not.toBe(0);
  expect(run.up.output).toContain(`[${code}]`);
  expect(run.resource, "a create that may have made a user must be recorded").toBeDefined();
  // The way out names this resource, ready to paste.
  const ways = [`pulumi up --replace '${run.resource!.urn}'`, `pulumi state delete '${run.resource!.urn}'`];
  for (const way of ways) expect(run.up.output).toContain(way);
  const users = named(api, run.userName);
  expect(users).toHaveLength(usersOnServer);
  expect(run.resource!.id).toMatch(code === "RESPONSE_UNUSABLE" ? new RegExp(`^${users[0].Id}$`) : /^unconfirmed-/);
  expect(run.resource!.outputs.__failure).toMatchObject({ code });
  for (const k of ["credentials", "name", "password", "swift", "s3", "ftp", "env", "ftpUrl"])
    expect(run.resource!.outputs, `recorded failure holds no ${k}`).not.toHaveProperty(k);
  if (!nextUp) return;
  const posts = api.requests.length;
  const again = failed(await stack.up([], { env: { STORAGE_API_URL: api.url } }));
  for (const text of [`[${code}]`, ...ways]) expect(again.output).toContain(text);
  expect(api.requests.length, "the next up must not POST again").toBe(posts);
  expect(named(api, run.userName)).toHaveLength(usersOnServer);
  expect((await stateOf(run.userName.replace(/-0$/, "")))?.id).toBe(run.resource!.id);
}

// Retried until it succeeds, or reached through the plugin's environment: exactly one user, in state under its Id.
test("503 three times (Retry-After: 0)", async () => {
  const api = await server();
  api.inject(...[1, 2, 3].map(() => ({ kind: "status" as const, status: 503, retryAfter: "0" })));
  expectCreated(await upCase("ok503", api.url), api);
  expect(api.createAttempts).toBe(4);
  expect(api.requests.every((r) => r.authorized)).toBe(true);
});

test("self-signed HTTPS with NODE_EXTRA_CA_CERTS pointing at its certificate", async () => {
  const api = await server(true);
  expectCreated(await upCase("tlsok", api.url, { env: { NODE_EXTRA_CA_CERTS: tls.certFile } }), api);
  expect(api.createAttempts).toBe(1);
});

test("HTTP_PROXY: the create goes through the proxy; NO_PROXY naming the API's host bypasses it", async () => {
  // A CONNECT proxy on loopback that counts the tunnels it opened.
  const tunnels: string[] = [];
  const proxy = http.createServer((_req, res) => res.writeHead(405).end());
  proxy.on("connect", (req, client: net.Socket, head) => {
    tunnels.push(req.url ?? "");
    const [host, port] = (req.url ?? "").split(":");
    const upstream = net.connect(Number(port), host, () => {
      client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      upstream.write(head);
      upstream.pipe(client).pipe(upstream);
    });
    upstream.on("error", () => client.destroy());
    client.on("error", () => upstream.destroy());
  });
  await new Promise<void>((r) => proxy.listen(0, "127.0.0.1", r));
  const proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  try {
    for (const [id, noProxy, viaProxy] of [
      ["proxied", undefined, 1],
      ["direct", "127.0.0.1", 0],
    ] as const) {
      const api = await server();
      const before = tunnels.length;
      const env = { HTTP_PROXY: proxyUrl, HTTPS_PROXY: proxyUrl, NO_PROXY: noProxy };
      expectCreated(await upCase(id, api.url, { env }), api);
      expect(tunnels.slice(before)).toEqual(viaProxy ? [`127.0.0.1:${api.port}`] : []);
    }
  } finally {
    proxy.closeAllConnections();
    await new Promise((r) => proxy.close(r));
  }
});

// Refused: the code and what to do, nothing created, nothing recorded.
test("429 with Retry-After: 1 until customTimeouts.create (3s) runs out: [RETRIES_EXHAUSTED]", async () => {
  const api = await server();
  api.inject(...Array.from({ length: 15 }, () => ({ kind: "status" as const, status: 429, retryAfter: "1" })));
  const run = await upCase("exh429", api.url, { createTimeout: "3s" });
  expectRefused(run, api, "RETRIES_EXHAUSTED");
  expect(run.up.output).toContain("customTimeouts.create");
  // The budget, not the fault queue, ended it: faults are left over.
  expect(api.createAttempts).toBeGreaterThanOrEqual(1);
  expect(api.createAttempts).toBeLessThan(15);
});

test("TLS: a self-signed certificate without NODE_EXTRA_CA_CERTS: [UNREACHABLE]", async () => {
  const api = await server(true);
  const run = await upCase("tlsbad", api.url);
  expectRefused(run, api, "UNREACHABLE");
  expect(run.up.output).toContain("TLS handshake failed");
  expect(run.up.output).toContain("NODE_EXTRA_CA_CERTS");
  expect(api.requests).toHaveLength(0);
});

// Sent without a verdict, or answered unusably: recorded, never POSTed again.
test("an answer slower than customTimeouts.create (3s, server takes 10s): [OUTCOME_UNKNOWN]", async () => {
  const api = await server();
  api.inject({ kind: "slow", ms: 10_000 });
  const run = await upCase("slow", api.url, { createTimeout: "3s" });
  expect(api.createAttempts).toBe(1);
  await expectRecorded(run, api, "OUTCOME_UNKNOWN", 1);
});

test("2xx with S3Connection.SecretKey missing: [RESPONSE_UNUSABLE] naming it, recorded under the user's Id; the next up sends nothing", async () => {
  const api = await server();
  api.inject({ kind: "incomplete", omit: ["S3Connection.SecretKey"] });
  const run = await upCase("badnos3key", api.url);
  expect(run.up.output).toContain("S3Connection.SecretKey is missing");
  expect(run.up.output).toContain(`storage user ${api.users[0]?.Id}`);
  expect(api.createAttempts).toBe(1);
  await expectRecorded(run, api, "RESPONSE_UNUSABLE", 1, true);
});

test("500, the guidance works: the next up sends nothing; `pulumi up --replace <urn>` creates one new user; `pulumi state delete <urn>` forgets it", async () => {
  const api = await server();
  api.inject({ kind: "status", status: 500 });
  const run = await upCase("guided", api.url);
  expect(run.up.output).toContain("HTTP 500: injected 500");
  expect(api.createAttempts).toBe(1);
  await expectRecorded(run, api, "OUTCOME_UNKNOWN", 0, true);
  const urn = run.resource!.urn as string;
  ok(await stack.up(["--replace", urn], { env: { STORAGE_API_URL: api.url } }));
  expect(api.createAttempts).toBe(2);
  expect(named(api, "guided-0")).toHaveLength(1);
  const now = await stateOf("guided");
  expect([now?.id, now?.outputs.__failure]).toEqual([String(api.users[0].Id), undefined]);
  ok(await stack.run(["state", "delete", urn, "--yes"]));
  expect(await stateOf("guided")).toBeUndefined();
  expect(api.createAttempts).toBe(2);
});
