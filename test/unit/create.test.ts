// The provider's methods, in-process, against the real local API server: wire format, retries,
// error codes and the partial-failure records. The real CLI path is covered by the e2e files.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from "vitest";
import { StorageUserError } from "../../provider/messages";
import * as runtime from "../../provider/runtime";
import { credentialsOf, outputs } from "../../provider/model";
import { Clock, createUser } from "../../provider/plugin/api";
import { ApiServer, startApiServer } from "../../server/api-server";

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
async function failure(p: Promise<unknown>): Promise<StorageUserError> {
  const err: unknown = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err, "expected the call to fail").toBeInstanceOf(StorageUserError);
  return err as StorageUserError;
}

beforeAll(async () => void (api = await startApiServer({ token })));
afterAll(() => api.close());
beforeEach(() => useConfig({ "storage:baseUrl": api.url, "storage:accessToken": token }));
let n = 0;
const fresh = () => `user-${process.pid}-${++n}`;

describe("create on success", () => {
  test("sends exactly the spec's request and maps every field", async () => {
    const userName = fresh();
    const before = api.requests.length;
    const res = await runtime.create(inputs({ userName }));
    const sent = api.requests[before];
    expect(sent).toMatchObject({
      method: "POST",
      path: "/storage/users",
      contentType: "application/json",
      authorized: true,
    });
    expect(JSON.parse(sent.body)).toEqual({ UserName: userName, PersistPassword: 0 });

    const u = api.users.find((x) => x.Name === userName)!;
    expect(res.id).toBe(String(u.Id));
    const outs = res.outs as Outs;
    // Each value once (the Id is the resource id); the secret holds only secrets; both as JSON text.
    expect(Object.keys(outs).sort()).toEqual(["account", "persistPassword", "secrets", "userName"]);
    expect(typeof outs.account).toBe("string");
    expect(typeof outs.secrets).toBe("string");
    expect({ ...outs, account: JSON.parse(outs.account), secrets: JSON.parse(outs.secrets) }).toEqual({
      userName,
      persistPassword: false,
      account: {
        baseUrl: new URL(api.url).href, // where the user lives (docs/lifecycle.md "Where a user lives")
        state: "New",
        tasks: [
          {
            id: u.Tasks[0].Id,
            progressPercent: 0,
            type: "StorageUserCreate",
            state: "New",
            startDate: u.Tasks[0].StartDate,
          },
        ],
        swiftEndpoint: u.SwiftApiConnection.Endpoint,
        s3Endpoint: u.S3Connection.Endpoint,
        ftpHostName: u.FtpConnection.HostName,
      },
      secrets: {
        name: userName,
        password: u.Password,
        swift: {
          tenantId: u.SwiftApiConnection.TenantId,
          accessKey: u.SwiftApiConnection.AccessKey,
          password: u.SwiftApiConnection.Password,
        },
        s3: { accessKey: u.S3Connection.AccessKey, secretKey: u.S3Connection.SecretKey },
        ftp: { login: u.FtpConnection.Login, password: u.FtpConnection.Password },
      },
    });
    expect(JSON.parse(JSON.stringify(outs))).toEqual(outs); // plain JSON only: the plugin rejects anything else
    // What the program offers as `credentials`: the endpoints put back.
    expect(credentialsOf(JSON.parse(outs.account), JSON.parse(outs.secrets))).toEqual({
      name: userName,
      password: u.Password,
      swift: {
        endpoint: u.SwiftApiConnection.Endpoint,
        tenantId: u.SwiftApiConnection.TenantId,
        accessKey: u.SwiftApiConnection.AccessKey,
        password: u.SwiftApiConnection.Password,
      },
      s3: {
        endpoint: u.S3Connection.Endpoint,
        accessKey: u.S3Connection.AccessKey,
        secretKey: u.S3Connection.SecretKey,
      },
      ftp: { hostName: u.FtpConnection.HostName, login: u.FtpConnection.Login, password: u.FtpConnection.Password },
    });
  });

  test("persistPassword true is sent as 1", async () => {
    const userName = fresh();
    await runtime.create(inputs({ userName, persistPassword: true }));
    expect(api.users.find((x) => x.Name === userName)!.PersistPassword).toBe(1);
  });

  test("tolerates what a careful client should: 201, Id as a string, Tasks as one object, unknown fields", async () => {
    const userName = fresh();
    api.inject({
      kind: "reshape",
      transform: (u) => ({ ...u, Id: String(u.Id), Tasks: u.Tasks[0], Extra: { nested: true } }),
    });
    const res = await runtime.create(inputs({ userName }));
    const u = api.users.find((x) => x.Name === userName)!;
    expect(res.id).toBe(String(u.Id));
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

const createOn = (clock: Clock, opts: { userName?: string; budgetMs?: number; baseUrl?: string } = {}) =>
  createUser(
    {
      baseUrl: new URL(opts.baseUrl ?? api.url),
      accessToken: token,
      userName: opts.userName ?? fresh(),
      persistPassword: false,
      deadline: clock.now() + (opts.budgetMs ?? 600_000),
    },
    clock,
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
    const { clock } = fakeClock();
    const err = await failure(createOn(clock));
    expect(err.code).toBe("RETRIES_EXHAUSTED");
    expect(err.message).toContain("after 20 attempt(s)");
    expect(err.message).toContain("nothing was created");
    expect(api.createAttempts - before.attempts).toBe(20);
    expect(api.users.length).toBe(before.users);
  });

  test("429 beyond the time budget: RETRIES_EXHAUSTED, nothing created", async () => {
    const before = { attempts: api.createAttempts, users: api.users.length };
    api.inject(...Array.from({ length: 10 }, () => ({ kind: "status" as const, status: 429, retryAfter: "10" })));
    const { clock, slept } = fakeClock();
    const err = await failure(createOn(clock, { budgetMs: 29_000 }));
    expect(err.code).toBe("RETRIES_EXHAUSTED");
    expect(err.message).toMatch(/HTTP 429 \(Retry-After: 10\)/);
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
        const err = await failure(createOn(fakeClock().clock));
        expect([err.code, api.requests.length - before, other.requests.length]).toEqual(["REDIRECT_REFUSED", 1, 0]);
        expect(err.message).toContain("/storage/users, which is not followed");
      }
    } finally {
      await other.close();
    }
  });

  test("connection refused: a few quick attempts, then UNREACHABLE", async () => {
    const closed = await startApiServer({ token });
    const url = closed.url;
    await closed.close();
    const { clock, slept } = fakeClock();
    const err = await failure(createOn(clock, { baseUrl: url }));
    expect(err.code).toBe("UNREACHABLE");
    expect(err.message).toContain("ECONNREFUSED");
    expect(err.message).toContain("after 4 attempt(s)");
    expect(err.message).toContain("storage:baseUrl is right");
    expect(slept).toEqual([250, 500, 1000]);
  });

  test("connection refused on a named connection: the hint names that connection's key", async () => {
    const closed = await startApiServer({ token });
    const url = closed.url;
    await closed.close();
    useConfig({ "storage:connections": JSON.stringify({ eu: { baseUrl: url, accessToken: token } }) });
    // A budget shorter than the first back-off: one attempt, no wait on the real clock.
    const err = await failure(runtime.create(inputs({ userName: fresh(), connection: "eu", __createTimeoutMs: 200 })));
    expect(err.code).toBe("UNREACHABLE");
    expect(err.message).toContain("storage:connections.eu.baseUrl is right");
    expect(err.message).not.toContain("storage:baseUrl");
  });

  test("a token refused on a named connection: the hint names where that token was read", async () => {
    const wrong = "wrong-token-for-eu-4d2c";
    useConfig({ "storage:connections": JSON.stringify({ eu: { baseUrl: api.url, accessToken: wrong } }) });
    const err = await failure(runtime.create(inputs({ userName: fresh(), connection: "eu" })));
    expect(err.code).toBe("UNAUTHORIZED");
    expect(err.message).toContain(
      "check the token of the user's connection (read from storage:connections.eu.accessToken)",
    );
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
  test.each([
    ["a dropped connection after the user was stored", { kind: "drop", after: "create" }, 1],
    ["a dropped connection before anything was stored", { kind: "drop", after: "nothing" }, 0],
    ["HTTP 500", { kind: "status", status: 500 }, 0],
    ["HTTP 502 from a gateway after the user was stored", { kind: "status", status: 502, create: true }, 1],
    ["HTTP 504 from a gateway after the user was stored", { kind: "status", status: 504, create: true }, 1],
    ["a success body that is not JSON and names no Id", { kind: "garbled", withId: false }, 1],
  ] as const)("%s -> OUTCOME_UNKNOWN, unconfirmed record", async (_what, fault, created) => {
    const userName = fresh();
    const before = { attempts: api.createAttempts, users: api.users.length };
    api.inject(fault);
    const err = await failure(runtime.create(inputs({ userName })));
    const rec = err as RecordedFailure;
    expect(rec.reasons).toEqual([rec.message]); // the reasons the engine records with it
    expect(rec.code).toBe("OUTCOME_UNKNOWN");
    expect(rec.message).toContain(`may have been created`);
    expect(rec.message).toContain("pulumi up --replace");
    expect(rec.id).toMatch(/^unconfirmed-/);
    expect(rec.properties).toMatchObject({
      userName,
      persistPassword: false,
      baseUrl: new URL(api.url).href,
      __provider: PROVIDER,
      __failure: { code: "OUTCOME_UNKNOWN" },
    });
    expect(Object.keys(rec.properties).sort()).toEqual([
      "__failure",
      "__provider",
      "baseUrl",
      "persistPassword",
      "userName",
    ]);
    expect(api.createAttempts - before.attempts).toBe(1);
    expect(api.users.length - before.users).toBe(created);
  });

  test("a response slower than the budget", async () => {
    api.inject({ kind: "slow", ms: 3000 });
    const before = api.createAttempts;
    const err = await failure(runtime.create(inputs({ userName: fresh(), __createTimeoutMs: 800 })));
    expect(api.createAttempts - before).toBe(1);
    expect(err.code).toBe("OUTCOME_UNKNOWN");
  });
});

describe("created but unusable: recorded under the real Id", () => {
  test.each([
    ["a body cut mid-way", { kind: "garbled", withId: true }, "the body is not valid JSON"],
    [
      "a missing secret key",
      { kind: "incomplete", omit: ["S3Connection.SecretKey"] },
      "S3Connection.SecretKey is missing",
    ],
    ["a missing connection", { kind: "incomplete", omit: ["FtpConnection"] }, "FtpConnection is missing"],
    [
      "a missing password and connection",
      { kind: "incomplete", omit: ["Password", "FtpConnection"] },
      "Password is missing; FtpConnection is missing",
    ],
    ["an oversized body", { kind: "oversized", bytes: 2_000_000 }, "larger than 1048576 bytes"],
  ] as const)("%s -> RESPONSE_UNUSABLE", async (_what, fault, problem) => {
    const userName = fresh();
    api.inject(fault);
    const err = (await failure(runtime.create(inputs({ userName })))) as RecordedFailure;
    const u = api.users.find((x) => x.Name === userName)!;
    expect(err.code).toBe("RESPONSE_UNUSABLE");
    expect(err.message).toContain(problem);
    expect(err.message).toContain(`storage user ${u.Id}`);
    expect(err.id).toBe(String(u.Id));
    expect(err.properties).toMatchObject({ userName, __provider: PROVIDER }); // the user's Id is the id
    expect(err.properties).not.toHaveProperty("userId");
    expect(JSON.stringify(err.properties)).not.toContain(u.Password);
    expect(err.properties).not.toHaveProperty("credentials");
  });

  test("update of a recorded resource fails again without a request; a clean one passes through", async () => {
    const before = api.createAttempts;
    const recorded = {
      userName: "x",
      persistPassword: false,
      __provider: "old",
      __failure: {
        code: "OUTCOME_UNKNOWN" as const,
        what: "the answer was lost",
        todo: "check the service",
        at: "2026-01-01T00:00:00Z",
      },
    };
    const err = (await failure(
      runtime.update("unconfirmed-1", recorded, { ...recorded, __provider: "new" }),
    )) as RecordedFailure;
    expect(err.id).toBe("unconfirmed-1");
    expect(err.properties.__provider).toBe("new");
    expect(err.message).toBe(
      "[OUTCOME_UNKNOWN] the answer was lost (recorded 2026-01-01T00:00:00Z; not created again on its own): check the service",
    );
    const account = { state: "New", tasks: [] };
    const clean = await runtime.update(
      "7",
      { userName: "x", account, __provider: "old" },
      { userName: "x", __provider: "new" },
    );
    expect(clean.outs).toEqual({ userName: "x", account });
    expect(api.createAttempts).toBe(before);
  });
});

describe("definite refusals name the fix", () => {
  test.each([
    ["401", { kind: "status", status: 401 }, "UNAUTHORIZED", "storage:accessToken"],
    ["403", { kind: "status", status: 403 }, "UNAUTHORIZED", "storage:accessToken"],
    ["404", { kind: "status", status: 404 }, "ENDPOINT_NOT_FOUND", "storage:baseUrl"],
    [
      "409",
      { kind: "status", status: 409, body: '{"error":{"message":"taken"}}' },
      "NAME_TAKEN",
      "leave userName out so a unique one is generated",
    ],
    [
      "400",
      { kind: "status", status: 400, body: '{"error":{"message":"UserName too odd"}}' },
      "REJECTED",
      "UserName too odd",
    ],
    [
      "422 as plain text",
      { kind: "status", status: 422, body: "nope, not like that" },
      "REJECTED",
      "nope, not like that",
    ],
    ["301", { kind: "redirect", status: 301, location: "/storage/users" }, "REDIRECT_REFUSED", "which is not followed"],
    ["302", { kind: "redirect", status: 302, location: "/storage/users" }, "REDIRECT_REFUSED", "which is not followed"],
    ["303", { kind: "redirect", status: 303, location: "/storage/users" }, "REDIRECT_REFUSED", "which is not followed"],
    [
      "401 with the API's message",
      { kind: "status", status: 401, body: JSON.stringify({ error: { message: "token expired" } }) },
      "UNAUTHORIZED",
      "HTTP 401: token expired",
    ],
    ["405", { kind: "status", status: 405 }, "ENDPOINT_NOT_FOUND", "storage:baseUrl"],
    [
      "422 with the API's message",
      {
        kind: "status",
        status: 422,
        body: JSON.stringify({ error: { code: "quota", message: "user quota of the account reached" } }),
      },
      "REJECTED",
      "HTTP 422: user quota of the account reached",
    ],
  ] as const)("%s", async (_what, fault, code, hint) => {
    const before = { users: api.users.length, attempts: api.createAttempts };
    api.inject(fault);
    const err = await failure(runtime.create(inputs({ userName: fresh() })));
    expect(err.code).toBe(code);
    expect(err.message).toContain(hint);
    expect(err.message).toContain("nothing was created");
    expect(api.users.length).toBe(before.users);
    expect(api.createAttempts - before.attempts, "a refusal is not retried").toBe(1);
  });

  test("the real server's own 409 and 403", async () => {
    const userName = fresh();
    await runtime.create(inputs({ userName }));
    expect((await failure(runtime.create(inputs({ userName })))).code).toBe("NAME_TAKEN");
    useConfig({ "storage:baseUrl": api.url, "storage:accessToken": "wrong-token" });
    const requests = api.requests.length;
    const wrong = await failure(runtime.create(inputs({ userName: fresh() })));
    expect(wrong.code).toBe("UNAUTHORIZED");
    expect(wrong.message).toContain("HTTP 403: the access token is not valid");
    expect(wrong.message).not.toContain("Bearer");
    expect(api.requests.slice(requests).map((r) => r.authorized)).toEqual([false]);
  });

  test("the real server's own 404 (a base URL that is not the API root) and 400 (a userName over its 128 characters)", async () => {
    const before = { users: api.users.length, requests: api.requests.length };
    useConfig({ "storage:baseUrl": `${api.url}/v2`, "storage:accessToken": token });
    const notRoot = await failure(runtime.create(inputs({ userName: fresh() })));
    expect(notRoot.code).toBe("ENDPOINT_NOT_FOUND");
    expect(notRoot.message).toContain(`POST ${api.url}/v2/storage/users answered HTTP 404`);
    expect(notRoot.message).toContain("check storage:baseUrl: it must be the API root");
    useConfig({ "storage:baseUrl": `${api.url}/storage/users`, "storage:accessToken": token });
    const doubled = await failure(runtime.create(inputs({ userName: fresh() })));
    expect(doubled.message).toContain("the base URL already ends in /storage/users: drop that from it");
    useConfig({ "storage:baseUrl": api.url, "storage:accessToken": token });
    const long = await failure(runtime.create(inputs({ userName: "x".repeat(140) })));
    expect(long.code).toBe("REJECTED");
    expect(long.message).toContain("HTTP 400: UserName must be at most 128 characters without control characters");
    expect(api.requests.length - before.requests).toBe(3);
    expect(api.users.length).toBe(before.users);
  });

  test("https:// to a server that speaks plain HTTP: UNREACHABLE names the scheme, and nothing is sent", async () => {
    const before = api.requests.length;
    useConfig({ "storage:baseUrl": api.url.replace("http://", "https://"), "storage:accessToken": token });
    const err = await failure(runtime.create(inputs({ userName: fresh() })));
    expect(err.code).toBe("UNREACHABLE");
    expect(err.message).toContain("the server speaks plain HTTP, not TLS: check the scheme in storage:baseUrl");
    expect(api.requests.length).toBe(before);
  });

  test("a token pasted with its scheme (`Bearer …`): UNAUTHORIZED says to drop the prefix, and never shows the token", async () => {
    const before = api.users.length;
    useConfig({ "storage:baseUrl": api.url, "storage:accessToken": `Bearer ${token}` });
    const err = await failure(runtime.create(inputs({ userName: fresh() })));
    expect(err.code).toBe("UNAUTHORIZED");
    expect(err.message).toContain("the API takes the bare token (`Authorization: <token>`), not `Bearer …`");
    expect(err.message).not.toContain(token);
    expect(api.users.length).toBe(before);
  });

  test("an API error that echoes the token is redacted", async () => {
    api.inject({
      kind: "status",
      status: 400,
      body: JSON.stringify({ error: { message: `bad header Authorization: ${token}` } }),
    });
    const err = await failure(runtime.create(inputs({ userName: fresh() })));
    expect(err.message).not.toContain(token);
    expect(err.message).toContain("[redacted]");
  });
});

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
    const err = await failure(runtime.create(inputs({ userName: fresh() })));
    expect(err.code).toBe("CONFIG_MISSING");
    expect(err.message).toContain("pulumi config set --secret storage:accessToken");
    expect(api.requests.length).toBe(before);
  });

  test.each([
    ["http://storage.example.com", "plain http://"],
    ["https://user:pw@storage.example.com", "user info"],
    ["https://storage.example.com/?x=1", "query"],
    ["ftp://storage.example.com", "ftp:"],
    ["storage.example.com", "not an absolute URL"],
  ])("check rejects baseUrl %s", async (baseUrl, why) => {
    useConfig({ "storage:baseUrl": baseUrl });
    const { failures } = await runtime.check({}, inputs());
    expect(failures).toHaveLength(1);
    expect(failures![0].property, "not an input of the resource: no property").toBe("");
    expect(failures![0].reason).toContain(why);
  });

  test("check needs no token and fills the persistPassword default", async () => {
    useConfig({ "storage:baseUrl": "https://storage.example.com/api" });
    const { inputs: checked, failures } = await runtime.check({}, { userName: "a", __provider: PROVIDER });
    expect(failures).toEqual([]);
    expect(checked).toEqual({ userName: "a", persistPassword: false, __provider: PROVIDER });
  });
});

describe("diff", () => {
  const old = { userName: "a", persistPassword: false, userId: 1, __provider: "v1" };
  test.each([
    [
      "nothing changed, provider code changed (an upgrade)",
      { userName: "a", persistPassword: false, __provider: "v2" },
      [],
    ],
    ["persistPassword left out = its default", { userName: "a", __provider: "v1" }, []],
    ["userName changed", { userName: "b", persistPassword: false, __provider: "v1" }, ["userName"]],
    ["persistPassword changed", { userName: "a", persistPassword: true, __provider: "v1" }, ["persistPassword"]],
    [
      "userName unknown during preview",
      { userName: "04da6b54-80e4-46f7-96ec-b56ff0331ba9", __provider: "v1" },
      ["userName"],
    ],
  ])("%s", async (_what, news, replaces) => {
    expect(await runtime.diff("1", old, news)).toEqual({
      changes: replaces.length > 0,
      replaces,
      deleteBeforeReplace: false,
    });
  });

  test("state written by 0.1.x is a change (no replace), and update rewrites it in today's shape without a request", async () => {
    const before = api.createAttempts;
    const swift = { endpoint: "https://swift.test/v1", tenantId: "t", accessKey: "sa", password: "sp" };
    const s3 = { endpoint: "https://s3.test", accessKey: "a", secretKey: "s" };
    const ftp = { hostName: "ftp.test", login: "l", password: "fp" };
    const tasks = [
      { id: 5, progressPercent: 0, type: "StorageUserCreate", state: "New", startDate: "2026-01-01T00:00:00" },
    ];
    const v01 = {
      userName: "a",
      persistPassword: false,
      userId: 1,
      state: "New",
      creationTaskId: 5,
      tasks,
      swiftEndpoint: swift.endpoint,
      s3Endpoint: s3.endpoint,
      ftpHostName: ftp.hostName,
      credentials: { name: "a", password: "p", swift, s3, ftp },
      __provider: "v1",
    };
    const news = { userName: "a", persistPassword: false, __provider: "v2" };
    expect(await runtime.diff("1", v01, news)).toEqual({ changes: true, replaces: [], deleteBeforeReplace: false });
    const { outs } = await runtime.update("1", v01, news);
    expect({ ...outs, account: JSON.parse(outs.account), secrets: JSON.parse(outs.secrets) }).toEqual({
      userName: "a",
      persistPassword: false,
      account: {
        state: "New",
        tasks,
        swiftEndpoint: swift.endpoint,
        s3Endpoint: s3.endpoint,
        ftpHostName: ftp.hostName,
      },
      secrets: {
        name: "a",
        password: "p",
        swift: { tenantId: "t", accessKey: "sa", password: "sp" },
        s3: { accessKey: "a", secretKey: "s" },
        ftp: { login: "l", password: "fp" },
      },
    });
    expect(credentialsOf(JSON.parse(outs.account), JSON.parse(outs.secrets))).toEqual(v01.credentials); // nothing lost
    expect(await runtime.diff("1", { ...outs, __provider: "v2" }, news)).toEqual({
      changes: false,
      replaces: [],
      deleteBeforeReplace: false,
    });
    expect(api.createAttempts).toBe(before);
  });

  test("a recorded failure always reports a change, so update repeats its guidance", async () => {
    const recorded = { ...old, __failure: { code: "OUTCOME_UNKNOWN" as const, what: "w", todo: "t", at: "now" } };
    expect(await runtime.diff("unconfirmed-1", recorded, { userName: "a", __provider: "v1" })).toEqual({
      changes: true,
      replaces: [],
      deleteBeforeReplace: false,
    });
  });
});

test("the serialized provider is the runtime module under node_modules, a forwarding object elsewhere", async () => {
  // The compiled modules, as the program loads them (`npm test` builds first).
  /* eslint-disable @typescript-eslint/no-require-imports -- the compiled modules, loaded as the plugin loads them */
  const { serializableProvider } =
    require("../../dist/provider/serializable") as typeof import("../../provider/serializable");
  const compiledRuntime = require("../../dist/provider/runtime") as unknown;
  /* eslint-enable @typescript-eslint/no-require-imports */
  expect(serializableProvider("runtime", "/srv/app/node_modules/pulumi-storage-user/dist/provider/runtime.js")).toBe(
    compiledRuntime,
  );
  const linked = serializableProvider("runtime", "/home/dev/pulumi-storage-user/dist/provider/runtime.js");
  expect(linked).not.toBe(compiledRuntime);
  expect(serializableProvider("runtime", "/elsewhere/runtime.js")).toBe(linked); // one object: serialized once
  // It forwards to the installed package's runtime.
  const news = { userName: "b", __provider: "x" };
  expect(await linked.diff!("1", { userName: "a" }, news)).toEqual(await runtime.diff("1", { userName: "a" }, news));
});
