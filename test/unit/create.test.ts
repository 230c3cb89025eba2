// The provider's methods, in-process, against the real local API server: wire format, retries,
// error codes and the partial-failure records. The real CLI path is covered by the e2e files.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from "vitest";
import { StorageUserError } from "../../provider/messages";
import * as runtime from "../../provider/runtime";
import { UNKNOWN } from "../../provider/arguments";
import { credentialsOf, outputs } from "../../provider/model";
import { Clock, createUser, newClient } from "../../provider/core/api";
import { ApiServer, Fault, startApiServer } from "../../server/api-server";
import { hits, secretsOf, withEncodings } from "../support/secrets";
import { errorSaid } from "../support/said";

type RecordedFailure = StorageUserError & { id: string; properties: Record<string, unknown>; reasons: string[] };
type Outs = { account: string; secrets: string };
const token = "client-test-token-42";
let api: ApiServer;
const PROVIDER = "exports.handler = () => ({});";

const useConfig = (values: Record<string, string | undefined>) =>
  runtime.configure({ config: { get: (k: string) => values[k] } } as Parameters<typeof runtime.configure>[0]);
const inputs = (extra: Record<string, unknown> = {}) => ({
  userName: "app-prod",
  persistPassword: false,
  __provider: PROVIDER,
  ...extra,
});
/**
 * The call's StorageUserError, with `code` and, when given, those `details`: what the message is made of, whose
 * prose is the catalogue's alone (test/unit/messages.test.ts holds each detail to appear in it).
 */
async function failure<T = StorageUserError>(
  p: Promise<unknown>,
  code?: string,
  details?: Record<string, unknown>,
): Promise<T> {
  const err: unknown = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err, "expected the call to fail").toBeInstanceOf(StorageUserError);
  if (code) expect((err as StorageUserError).code).toBe(code);
  if (details) expect((err as StorageUserError).details).toMatchObject(details);
  return err as T;
}
/** The address of a server that has stopped: connections to it are refused. */
async function closedUrl() {
  const closed = await startApiServer({ token });
  await closed.close();
  return closed.url;
}
const status = (status: number, body?: string): Fault => ({ kind: "status", status, body });
const apiMessage = (message: string, code?: string) => JSON.stringify({ error: { code, message } });
const noChange = { changes: false, replaces: [], deleteBeforeReplace: false };
const change = { ...noChange, changes: true };

beforeAll(async () => void (api = await startApiServer({ token })));
afterAll(() => api.close());
beforeEach(() => useConfig({ "storage:baseUrl": api.url, "storage:accessToken": token }));
let n = 0;
const fresh = () => `user-${process.pid}-${++n}`;

describe("create on success", () => {
  test("sends exactly the spec's request and maps every field", async () => {
    const userName = fresh();
    const [before, startedAt] = [api.requests.length, Date.now()];
    const res = await runtime.create(inputs({ userName }));
    const endedAt = Date.now();
    const { method, path, contentType, authorized, body } = api.requests[before];
    expect([method, path, contentType, authorized]).toEqual(["POST", "/storage/users", "application/json", true]);
    expect(JSON.parse(body)).toEqual({ UserName: userName, PersistPassword: 0 });

    const u = api.users.find((x) => x.Name === userName)!;
    const [{ SwiftApiConnection: sw, S3Connection: s3, FtpConnection: ftp }, task] = [u, u.Tasks[0]];
    // The spec's StartDate: no zone designator, milliseconds.
    expect(task.StartDate).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}$/);
    expect(res.id).toBe(String(u.Id));
    const outs = res.outs as Outs;
    // Each value once (the Id is the resource id); the secret holds only secrets; both as JSON text.
    expect(Object.keys(outs).sort()).toEqual(["account", "persistPassword", "secrets", "userName"]);
    expect([typeof outs.account, typeof outs.secrets]).toEqual(["string", "string"]);
    const [account, secrets] = [JSON.parse(outs.account), JSON.parse(outs.secrets)];
    // When the user was created, by this machine's clock: where a rotateAfter period starts.
    const createdAt = Date.parse(account.createdAt);
    expect(createdAt >= startedAt && createdAt <= endedAt && new Date(createdAt).toISOString()).toBe(account.createdAt);
    expect({ ...outs, account, secrets }).toEqual({
      userName,
      persistPassword: false,
      account: {
        baseUrl: new URL(api.url).href, // where the user lives (docs/lifecycle.md "Where a user lives")
        createdAt: account.createdAt,
        state: "New",
        tasks: [
          { id: task.Id, progressPercent: 0, type: "StorageUserCreate", state: "New", startDate: task.StartDate },
        ],
        swiftEndpoint: sw.Endpoint,
        s3Endpoint: s3.Endpoint,
        ftpHostName: ftp.HostName,
      },
      secrets: {
        name: userName,
        password: u.Password,
        swift: { tenantId: sw.TenantId, accessKey: sw.AccessKey, password: sw.Password },
        s3: { accessKey: s3.AccessKey, secretKey: s3.SecretKey },
        ftp: { login: ftp.Login, password: ftp.Password },
      },
    });
    expect(JSON.parse(JSON.stringify(outs))).toStrictEqual(outs); // plain JSON only, no undefined: the plugin rejects anything else
    // What the program offers as `credentials`: the endpoints put back.
    expect(credentialsOf(account, secrets)).toEqual({
      ...secrets,
      swift: { endpoint: sw.Endpoint, ...secrets.swift },
      s3: { endpoint: s3.Endpoint, ...secrets.s3 },
      ftp: { hostName: ftp.HostName, ...secrets.ftp },
    });
  });

  test("tolerates what a careful client should: 201, Id as a string, Tasks as one object, unknown fields; persistPassword true is sent as 1", async () => {
    const userName = fresh();
    api.inject({
      kind: "reshape",
      transform: (u) => ({ ...u, Id: String(u.Id), Tasks: u.Tasks[0], Extra: { nested: true } }),
    });
    const res = await runtime.create(inputs({ userName, persistPassword: true }));
    const u = api.users.find((x) => x.Name === userName)!;
    expect([res.id, u.PersistPassword]).toEqual([String(u.Id), 1]);
    expect(outputs.creationTaskId.derive(JSON.parse((res.outs as Outs).account))).toBe(u.Tasks[0].Id);
  });
});

// A clock that never waits: each sleep moves time on and is recorded; jitter 0, so each delay is the policy's floor.
function fakeClock() {
  let t = Date.now();
  const slept: number[] = [];
  const clock: Clock = { now: () => t, sleep: async (ms) => void (slept.push(ms), (t += ms)), random: () => 0 };
  return { clock, slept };
}

const request = (baseUrl = api.url, budgetMs = 600_000, now = Date.now()) => ({
  baseUrl: new URL(baseUrl),
  accessToken: token,
  userName: fresh(),
  persistPassword: false,
  deadline: now + budgetMs,
});
const createOn = (clock: Clock, opts: { userName?: string; budgetMs?: number; baseUrl?: string } = {}) =>
  createUser(
    { ...request(opts.baseUrl, opts.budgetMs, clock.now()), ...(opts.userName ? { userName: opts.userName } : {}) },
    newClient(clock),
  );

describe("retries only what created nothing", () => {
  test.each([
    ["429 with Retry-After: the Retry-After waited", [{ status: 429, retryAfter: "1" }], [1000]],
    ["429 without Retry-After: the policy's back-off", [{ status: 429 }], [250]],
    ["503 twice: the back-off doubles", [{ status: 503 }, { status: 503 }], [250, 500]],
  ])("%s, then success: one user, a POST per attempt", async (_what, faults, delays) => {
    const [userName, before] = [fresh(), api.createAttempts];
    api.inject(...faults.map((f) => ({ kind: "status" as const, ...f })));
    const { clock, slept } = fakeClock();
    expect((await createOn(clock, { userName })).kind).toBe("created");
    expect([slept, api.createAttempts - before]).toEqual([delays, faults.length + 1]);
    expect(api.users.filter((x) => x.Name === userName)).toHaveLength(1);
  });

  test("503 twenty times: exactly 20 attempts, then RETRIES_EXHAUSTED, nothing created", async () => {
    const before = { attempts: api.createAttempts, users: api.users.length };
    // A 21st attempt would find no fault left and create the user: the count would show it.
    api.inject(...Array.from({ length: 20 }, () => ({ kind: "status" as const, status: 503, retryAfter: "0" })));
    await failure(createOn(fakeClock().clock), "RETRIES_EXHAUSTED", { attempts: 20 });
    expect([api.createAttempts - before.attempts, api.users.length]).toEqual([20, before.users]);
  });

  test("429 beyond the time budget: RETRIES_EXHAUSTED, nothing created", async () => {
    const before = { attempts: api.createAttempts, users: api.users.length };
    api.inject(...Array.from({ length: 10 }, () => ({ kind: "status" as const, status: 429, retryAfter: "10" })));
    const { clock, slept } = fakeClock();
    const last = expect.stringMatching(/^HTTP 429 \(Retry-After: 10\)/);
    await failure(createOn(clock, { budgetMs: 29_000 }), "RETRIES_EXHAUSTED", { attempts: 3, last });
    expect(api.users.length).toBe(before.users);
    // Attempts at 0, 10 and 20 s; a wait to 30 s would overrun the budget, so none starts. (Seconds,
    // not milliseconds: the last attempt's request still has 9 s of real time to be answered in.)
    expect(slept).toEqual([10_000, 10_000]);
    expect(api.createAttempts - before.attempts).toBe(3);
    await drainFaults();
  });

  test("every redirect is refused, same origin included: one request, the token sent nowhere else", async () => {
    const other = await startApiServer({ token });
    try {
      for (const location of ["/storage/users", `${other.url}/storage/users`]) {
        const before = api.requests.length;
        api.inject({ kind: "redirect", status: 307, location });
        const refused = { status: 307, location: new URL(location, api.url).href, source: "storage:baseUrl" };
        await failure(createOn(fakeClock().clock), "REDIRECT_REFUSED", refused);
        expect([api.requests.length - before, other.requests.length]).toEqual([1, 0]);
      }
    } finally {
      await other.close();
    }
  });

  test("connection refused: a few quick attempts, then UNREACHABLE", async () => {
    const { clock, slept } = fakeClock();
    const detail = expect.stringContaining("ECONNREFUSED");
    const refused = { problem: "noConnection", attempts: 4, source: "storage:baseUrl", detail };
    await failure(createOn(clock, { baseUrl: await closedUrl() }), "UNREACHABLE", refused);
    expect(slept).toEqual([250, 500, 1000]);
  });

  test("connection refused on a named connection: the hint names that connection's key", async () => {
    useConfig({ "storage:connections": JSON.stringify({ eu: { baseUrl: await closedUrl(), accessToken: token } }) });
    // A budget shorter than the first back-off: one attempt, no wait on the real clock.
    const create = runtime.create(inputs({ userName: fresh(), connection: "eu", __createTimeoutMs: 200 }));
    await failure(create, "UNREACHABLE", { problem: "noConnection", source: "storage:connections.eu.baseUrl" });
  });

  test("a token refused on a named connection: the hint names where that token was read", async () => {
    const wrong = "wrong-token-for-eu-4d2c";
    useConfig({ "storage:connections": JSON.stringify({ eu: { baseUrl: api.url, accessToken: wrong } }) });
    const source = { status: 403, withScheme: false, source: "storage:connections.eu.accessToken" };
    const err = await failure(runtime.create(inputs({ userName: fresh(), connection: "eu" })), "UNAUTHORIZED", source);
    expect(err.message).not.toContain(wrong);
  });
});

/** Consumes faults left over by a test that stopped early, so they do not leak into the next. */
async function drainFaults() {
  for (let i = 0; i < 12; i++)
    await fetch(`${api.url}/storage/users`, {
      method: "POST",
      headers: { authorization: token, "content-type": "application/json" },
      body: "{}",
    });
}

describe("sent but unanswered: recorded, never retried", () => {
  test.each<[string, Fault, number]>([
    ["a dropped connection after the user was stored", { kind: "drop", after: "create" }, 1],
    ["a dropped connection before anything was stored", { kind: "drop", after: "nothing" }, 0],
    ["HTTP 500", status(500), 0],
    ["HTTP 502 from a gateway after the user was stored", { kind: "status", status: 502, create: true }, 1],
    ["HTTP 504 from a gateway after the user was stored", { kind: "status", status: 504, create: true }, 1],
    ["a success body that is not JSON and names no Id", { kind: "garbled", withId: false }, 1],
  ])("%s -> OUTCOME_UNKNOWN, unconfirmed record", async (_what, fault, created) => {
    const userName = fresh();
    const before = { attempts: api.createAttempts, users: api.users.length };
    api.inject(fault);
    const sent = { userName, service: new URL(api.url).href };
    const rec = await failure<RecordedFailure>(runtime.create(inputs({ userName })), "OUTCOME_UNKNOWN", sent);
    expect(rec.reasons).toEqual([rec.message]); // the reasons the engine records with it
    expect(rec.id).toMatch(/^unconfirmed-/);
    expect(rec.properties).toEqual({
      ...inputs({ userName }),
      baseUrl: new URL(api.url).href,
      __failure: expect.objectContaining({ code: "OUTCOME_UNKNOWN" }),
    });
    expect([api.createAttempts - before.attempts, api.users.length - before.users]).toEqual([1, created]);
  });

  test("a response slower than the budget", async () => {
    api.inject({ kind: "slow", ms: 3000 });
    const before = api.createAttempts;
    await failure(runtime.create(inputs({ userName: fresh(), __createTimeoutMs: 800 })), "OUTCOME_UNKNOWN");
    expect(api.createAttempts - before).toBe(1);
  });
});

describe("created but unusable: recorded under the real Id", () => {
  const omit = (...fields: string[]): Fault => ({ kind: "incomplete", omit: fields });
  test.each<[string, Fault, unknown[]]>([
    ["a body cut mid-way", { kind: "garbled", withId: true }, ["the body is not valid JSON"]],
    ["a missing secret key", omit("S3Connection.SecretKey"), ["S3Connection.SecretKey is missing"]],
    ["a missing connection", omit("FtpConnection"), ["FtpConnection is missing"]],
    [
      "no password, no connection",
      omit("Password", "FtpConnection"),
      ["Password is missing", "FtpConnection is missing"],
    ],
    [
      "an oversized body",
      { kind: "oversized", bytes: 2_000_000 },
      [expect.stringContaining("larger than 1048576 bytes")],
    ],
  ])("%s -> RESPONSE_UNUSABLE", async (_what, fault, problems) => {
    const userName = fresh();
    api.inject(fault);
    const create = runtime.create(inputs({ userName }));
    const err = await failure<RecordedFailure>(create, "RESPONSE_UNUSABLE", { problem: "created", userName, problems });
    const u = api.users.find((x) => x.Name === userName)!;
    expect(err.details.userId).toBe(u.Id);
    expect(err.id).toBe(String(u.Id));
    expect(err.properties).toMatchObject({ userName, __provider: PROVIDER }); // the user's Id is the id
    expect(err.properties).not.toHaveProperty("userId");
    expect(err.properties).not.toHaveProperty("credentials");
    // Every credential the service issued that user, in every form a leak might take; the search finds them where they are.
    const needles = withEncodings(secretsOf(u));
    const recorded: Array<[string, string]> = [
      ["the recorded properties", JSON.stringify(err.properties)],
      ["the message", err.message],
      ["the reasons", JSON.stringify(err.reasons)],
    ];
    expect([
      hits(recorded, needles),
      hits([["the service's record", JSON.stringify(u)]], needles).length,
    ]).toStrictEqual([
      [],
      8, // its 6 secrets and the FTP login and password (the URL and base64 forms are not in that JSON)
    ]);
  });

  test("update of a recorded resource fails again without a request; a clean one passes through", async () => {
    const before = api.createAttempts;
    const __failure = { code: "OUTCOME_UNKNOWN" as const, what: "lost", todo: "check", at: "2026-01-01T00:00:00Z" };
    const recorded = { userName: "x", persistPassword: false, __provider: "old", __failure };
    const err = await failure<RecordedFailure>(
      runtime.update("unconfirmed-1", recorded, { ...recorded, __provider: "new" }),
    );
    expect([err.id, err.properties.__provider]).toEqual(["unconfirmed-1", "new"]);
    expect(err.message).toBe(errorSaid("OUTCOME_UNKNOWN", { problem: "recorded", ...__failure }));
    const clean = { userName: "x", account: { state: "New", tasks: [] } };
    const updated = await runtime.update("7", { ...clean, __provider: "old" }, { userName: "x", __provider: "new" });
    expect(updated.outs).toEqual(clean);
    expect(api.createAttempts).toBe(before);
  });
});

describe("definite refusals name the fix", () => {
  const redirect = (status: number): Fault => ({ kind: "redirect", status, location: "/storage/users" });
  const fromToken = { source: "storage:accessToken", withScheme: false };
  const root = { source: "storage:baseUrl" };
  const moved = (status: number) => ({ status, location: `${api.url}/storage/users`, source: "storage:baseUrl" });
  type Refusal = [string, Fault, string, Record<string, unknown> | (() => Record<string, unknown>)];
  test.each<Refusal>([
    ["401", status(401), "UNAUTHORIZED", { status: 401, apiMessage: "injected 401", ...fromToken }],
    [
      "401 with the API's message",
      status(401, apiMessage("token expired")),
      "UNAUTHORIZED",
      { status: 401, apiMessage: "token expired" },
    ],
    ["403", status(403), "UNAUTHORIZED", { status: 403, apiMessage: "injected 403", ...fromToken }],
    ...[404, 405].map((s): Refusal => [String(s), status(s), "ENDPOINT_NOT_FOUND", { status: s, ...root }]),
    ["409", status(409, apiMessage("taken")), "NAME_TAKEN", { apiMessage: "taken" }],
    ["400", status(400, apiMessage("UserName too odd")), "REJECTED", { status: 400, apiMessage: "UserName too odd" }],
    [
      "422 as plain text",
      status(422, "nope, not like that"),
      "REJECTED",
      { status: 422, apiMessage: "nope, not like that" },
    ],
    [
      "422 with a coded error",
      status(422, apiMessage("quota reached", "quota")),
      "REJECTED",
      { status: 422, apiMessage: "quota reached" },
    ],
    ...[301, 302, 303].map((s): Refusal => [String(s), redirect(s), "REDIRECT_REFUSED", () => moved(s)]),
  ])("%s", async (_what, fault, code, details) => {
    const before = { users: api.users.length, attempts: api.createAttempts };
    api.inject(fault);
    await failure(
      runtime.create(inputs({ userName: fresh() })),
      code,
      typeof details === "function" ? details() : details,
    );
    expect(api.users.length).toBe(before.users);
    expect(api.createAttempts - before.attempts, "a refusal is not retried").toBe(1);
  });

  test("the real server's own 409 and 403", async () => {
    const userName = fresh();
    await runtime.create(inputs({ userName }));
    await failure(runtime.create(inputs({ userName })), "NAME_TAKEN");
    useConfig({ "storage:baseUrl": api.url, "storage:accessToken": "wrong-token" });
    const requests = api.requests.length;
    const invalid = { status: 403, apiMessage: "the access token is not valid", withScheme: false };
    await failure(runtime.create(inputs({ userName: fresh() })), "UNAUTHORIZED", invalid);
    expect(api.requests.slice(requests).map((r) => r.authorized)).toEqual([false]);
  });

  test("the real server's own 404 (a base URL that is not the API root) and 400 (a userName over its 128 characters)", async () => {
    const before = { users: api.users.length, requests: api.requests.length };
    useConfig({ "storage:baseUrl": `${api.url}/v2`, "storage:accessToken": token });
    const notRoot = { status: 404, url: `${api.url}/v2/storage/users`, source: "storage:baseUrl" };
    await failure(runtime.create(inputs({ userName: fresh() })), "ENDPOINT_NOT_FOUND", notRoot);
    useConfig({ "storage:baseUrl": `${api.url}/storage/users`, "storage:accessToken": token });
    const doubled = { status: 404, url: `${api.url}/storage/users/storage/users`, source: "storage:baseUrl" };
    await failure(runtime.create(inputs({ userName: fresh() })), "ENDPOINT_NOT_FOUND", doubled);
    useConfig({ "storage:baseUrl": api.url, "storage:accessToken": token });
    const long = { status: 400, apiMessage: "UserName must be at most 128 characters without control characters" };
    await failure(runtime.create(inputs({ userName: "x".repeat(140) })), "REJECTED", long);
    expect(api.requests.length - before.requests).toBe(3);
    expect(api.users.length).toBe(before.users);
  });

  test("https:// to a server that speaks plain HTTP: UNREACHABLE names the scheme, and nothing is sent", async () => {
    const before = api.requests.length;
    useConfig({ "storage:baseUrl": api.url.replace("http://", "https://"), "storage:accessToken": token });
    // OpenSSL's words, from which the message tells plain HTTP (the catalogue's own test: messages.test.ts).
    const detail = expect.stringMatching(/wrong version number|packet length too long|http request/i);
    const url = `${api.url.replace("http://", "https://")}/storage/users`;
    await failure(runtime.create(inputs({ userName: fresh() })), "UNREACHABLE", { problem: "tls", url, detail });
    expect(api.requests.length).toBe(before);
  });

  test("a token pasted with its scheme (`Bearer …`): UNAUTHORIZED says to drop the prefix, and never shows the token", async () => {
    const before = api.users.length;
    useConfig({ "storage:baseUrl": api.url, "storage:accessToken": `Bearer ${token}` });
    const err = await failure(runtime.create(inputs({ userName: fresh() })), "UNAUTHORIZED", { withScheme: true });
    expect(err.message).not.toContain(token);
    expect(api.users.length).toBe(before);
  });

  test("an API error that echoes the token is redacted", async () => {
    api.inject(status(400, apiMessage(`bad header Authorization: ${token}`)));
    const said = { apiMessage: "bad header Authorization: [redacted]" };
    const err = await failure(runtime.create(inputs({ userName: fresh() })), "REJECTED", said);
    expect(err.message).not.toContain(token);
  });
});

// Each base URL rule of check, and that check needs no token: test/unit/input-rules.test.ts.
describe("configuration", () => {
  afterEach(() => {
    delete process.env.STORAGE_API_URL;
    delete process.env.STORAGE_ACCESS_TOKEN;
  });

  test("stack config wins over the environment; the environment fills gaps", async () => {
    process.env.STORAGE_API_URL = "http://127.0.0.1:1";
    process.env.STORAGE_ACCESS_TOKEN = token;
    useConfig({ "storage:baseUrl": api.url });
    const res = await runtime.create(inputs({ userName: fresh() }));
    expect(res.id).toMatch(/^\d+$/);
  });

  test("no token: CONFIG_MISSING before any request", async () => {
    const before = api.requests.length;
    useConfig({ "storage:baseUrl": api.url });
    const missing = { setting: "access token", key: "storage:accessToken", env: "STORAGE_ACCESS_TOKEN" };
    await failure(runtime.create(inputs({ userName: fresh() })), "CONFIG_MISSING", missing);
    expect(api.requests.length).toBe(before);
  });
});

describe("diff", () => {
  const a = { userName: "a", persistPassword: false };
  const old = { ...a, userId: 1, __provider: "v1" };
  test.each([
    ["nothing changed, provider code changed (an upgrade)", { ...a, __provider: "v2" }, []],
    ["persistPassword left out = its default", { userName: "a", __provider: "v1" }, []],
    ["userName changed", { ...a, userName: "b", __provider: "v1" }, ["userName"]],
    ["persistPassword changed", { ...a, persistPassword: true, __provider: "v1" }, ["persistPassword"]],
    ["userName unknown during preview", { userName: UNKNOWN, __provider: "v1" }, ["userName"]],
  ])("%s", async (_what, news, replaces) => {
    expect(await runtime.diff("1", old, news)).toEqual({ ...noChange, changes: replaces.length > 0, replaces });
  });

  test("state written by 0.1.x is a change (no replace), and update rewrites it in today's shape without a request", async () => {
    const before = api.createAttempts;
    const swift = { tenantId: "t", accessKey: "sa", password: "sp" };
    const s3 = { accessKey: "a", secretKey: "s" };
    const ftp = { login: "l", password: "fp" };
    const task = { id: 5, progressPercent: 0, type: "StorageUserCreate", state: "New", startDate: "2026-01-01" };
    const endpoints = { swiftEndpoint: "https://swift.test/v1", s3Endpoint: "https://s3", ftpHostName: "ftp" };
    const account = { state: "New", tasks: [task], ...endpoints };
    const credentials = {
      name: "a",
      password: "p",
      swift: { endpoint: account.swiftEndpoint, ...swift },
      s3: { endpoint: account.s3Endpoint, ...s3 },
      ftp: { hostName: account.ftpHostName, ...ftp },
    };
    const v01 = { ...a, userId: 1, creationTaskId: 5, ...account, credentials, __provider: "v1" };
    const news = { ...a, __provider: "v2" };
    expect(await runtime.diff("1", v01, news)).toEqual(change);
    const { outs } = await runtime.update("1", v01, news);
    const [outAccount, outSecrets] = [JSON.parse(outs.account), JSON.parse(outs.secrets)];
    expect({ ...outs, account: outAccount, secrets: outSecrets }).toEqual({
      ...a,
      account,
      secrets: { name: "a", password: "p", swift, s3, ftp },
    });
    expect(credentialsOf(outAccount, outSecrets)).toEqual(credentials); // nothing lost
    expect(await runtime.diff("1", { ...outs, __provider: "v2" }, news)).toEqual(noChange);
    expect(api.createAttempts).toBe(before);
  });

  test("a recorded failure always reports a change, so update repeats its guidance", async () => {
    const recorded = { ...old, __failure: { code: "OUTCOME_UNKNOWN" as const, what: "w", todo: "t", at: "now" } };
    expect(await runtime.diff("unconfirmed-1", recorded, { userName: "a", __provider: "v1" })).toEqual(change);
  });
});

test("the serialized provider is the runtime module under node_modules, a forwarding object elsewhere", async () => {
  // The compiled modules, as the program loads them (`npm test` builds first).
  /* eslint-disable @typescript-eslint/no-require-imports -- the compiled modules, loaded as the plugin loads them */
  const { serializableProvider } =
    require("../../dist/provider/serializable") as typeof import("../../provider/serializable");
  const compiledRuntime = require("../../dist/provider/runtime") as unknown;
  /* eslint-enable @typescript-eslint/no-require-imports */
  const installed = "/srv/app/node_modules/pulumi-storage-user/dist/provider/runtime.js";
  expect(serializableProvider("runtime", installed)).toBe(compiledRuntime);
  const linked = serializableProvider("runtime", "/home/dev/pulumi-storage-user/dist/provider/runtime.js");
  expect(linked).not.toBe(compiledRuntime);
  expect(serializableProvider("runtime", "/elsewhere/runtime.js")).toBe(linked); // one object: serialized once
  // It forwards to the installed package's runtime.
  const news = { userName: "b", __provider: "x" };
  expect(await linked.diff!("1", { userName: "a" }, news)).toEqual(await runtime.diff("1", { userName: "a" }, news));
});
