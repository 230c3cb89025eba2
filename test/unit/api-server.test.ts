// The local storage API: the spec's shape on success, the decided error answers, and the
// scripted faults every other test relies on.
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { ApiServer, startApiServer, StoredUser } from "../../server/api-server";
import { randomSecret } from "../../server/tokens";

const token = "srv-test-token-0001";
/** The error answer's body (server/api-server.ts). */
type ErrorBody = { error: { code: string } };
let api: ApiServer;
beforeEach(async () => void (api = await startApiServer({ token })));
afterEach(() => api.close());

const post = (
  body: unknown,
  headers: Record<string, string> = { "content-type": "application/json", authorization: token },
) =>
  fetch(`${api.url}/storage/users`, {
    method: "POST",
    headers,
    body: typeof body === "string" ? body : JSON.stringify(body),
  });

describe("POST /storage/users", () => {
  test("answers the full user of spec 2.1 with fresh credentials", async () => {
    const res = await post({ UserName: "alice", PersistPassword: 1 });
    expect(res.status).toBe(200);
    const u = (await res.json()) as StoredUser;
    expect(u).toMatchObject({
      Id: expect.any(Number),
      Name: "alice",
      Password: expect.any(String),
      SwiftApiConnection: {
        Endpoint: expect.any(String),
        TenantId: expect.any(String),
        AccessKey: expect.any(String),
        Password: expect.any(String),
      },
      S3Connection: { Endpoint: expect.any(String), AccessKey: expect.any(String), SecretKey: expect.any(String) },
      FtpConnection: { HostName: expect.any(String), Login: expect.any(String), Password: expect.any(String) },
      State: "New",
    });
    expect(u.Tasks).toHaveLength(1);
    expect(u.Tasks[0]).toMatchObject({
      Id: expect.any(Number),
      ProgressPercent: 0,
      Type: "StorageUserCreate",
      State: "New",
    });
    expect(u.Tasks[0].StartDate).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}$/);
    const second = (await (await post({ UserName: "bob" })).json()) as StoredUser;
    expect(second.Password).not.toBe(u.Password);
    expect(second.S3Connection.SecretKey).not.toBe(u.S3Connection.SecretKey);
    expect(api.users.map((x) => x.Name)).toEqual(["alice", "bob"]);
  });

  test.each([
    ["no token", { "content-type": "application/json" }, 401, "unauthorized"],
    ["wrong token", { "content-type": "application/json", authorization: "nope" }, 403, "forbidden"],
    [
      "bearer scheme (the spec sends the bare token)",
      { "content-type": "application/json", authorization: `Bearer ${token}` },
      403,
      "forbidden",
    ],
    ["text body", { "content-type": "text/plain", authorization: token }, 415, "unsupported_media_type"],
  ])("refuses %s", async (_what, headers, status, code) => {
    const res = await post({ UserName: "x" }, headers);
    expect(res.status).toBe(status);
    expect(((await res.json()) as ErrorBody).error.code).toBe(code);
    expect(api.users).toHaveLength(0);
  });

  test.each([
    ["broken JSON", "{", "invalid_json"],
    ["an array", [], "invalid_body"],
    ["no UserName", { PersistPassword: 0 }, "invalid_user_name"],
    ["empty UserName", { UserName: "" }, "invalid_user_name"],
    ["PersistPassword 2", { UserName: "x", PersistPassword: 2 }, "invalid_persist_password"],
  ])("answers 400 for %s", async (_what, body, code) => {
    const res = await post(body);
    expect(res.status).toBe(400);
    expect(((await res.json()) as ErrorBody).error.code).toBe(code);
    expect(api.users).toHaveLength(0);
  });

  test("409 for a name that exists, 404 elsewhere, 405 for GET", async () => {
    await post({ UserName: "dup" });
    expect((await post({ UserName: "dup" })).status).toBe(409);
    expect((await fetch(`${api.url}/storage/other`, { method: "POST" })).status).toBe(404);
    expect((await fetch(`${api.url}/storage/users`)).status).toBe(405);
    expect(api.users).toHaveLength(1);
  });
});

describe("faults", () => {
  test("status faults answer without storing unless told to", async () => {
    api.inject({ kind: "status", status: 429, retryAfter: "2" }, { kind: "status", status: 502, create: true });
    const r1 = await post({ UserName: "a" });
    expect([r1.status, r1.headers.get("retry-after")]).toEqual([429, "2"]);
    expect(api.users).toHaveLength(0);
    expect((await post({ UserName: "b" })).status).toBe(502);
    expect(api.users).toHaveLength(1);
    expect(api.createAttempts).toBe(2);
  });

  test("drop after create stores the user and answers nothing", async () => {
    api.inject({ kind: "drop", after: "create" }, { kind: "drop", after: "nothing" });
    await expect(post({ UserName: "a" })).rejects.toThrow();
    expect(api.users).toHaveLength(1);
    await expect(post({ UserName: "b" })).rejects.toThrow();
    expect(api.users).toHaveLength(1);
  });

  test("garbled, incomplete and oversized bodies come with a stored user", async () => {
    api.inject(
      { kind: "garbled", withId: true },
      { kind: "incomplete", omit: ["S3Connection.SecretKey"] },
      { kind: "oversized", bytes: 2_000_000 },
    );
    const garbled = await (await post({ UserName: "a" })).text();
    expect(() => JSON.parse(garbled)).toThrow();
    expect(garbled).toContain(`"Id":${api.users[0].Id}`);
    const incomplete = (await (await post({ UserName: "b" })).json()) as Partial<StoredUser>;
    expect(incomplete.S3Connection?.SecretKey).toBeUndefined();
    expect((await (await post({ UserName: "c" })).text()).length).toBeGreaterThan(2_000_000);
    expect(api.users).toHaveLength(3);
  });

  test("rate limit answers 429 with Retry-After beyond the budget", async () => {
    await api.close();
    // The bucket's clock stands still: however slowly the four POSTs go, nothing refills.
    const t0 = Date.now();
    api = await startApiServer({ token, rateLimit: { perSecond: 2, retryAfterSeconds: 1 }, now: () => t0 });
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await post({ UserName: `u${i}` })).status);
    expect(statuses).toEqual([200, 200, 429, 429]);
  });
});

// A token that begins with "-" reads as a flag where a tool takes it on the command line
// (test/e2e/engine/secrets.test.ts sets one as README says).
test("the token it generates never begins with '-'", () => {
  const drawn = Array.from({ length: 4096 }, () => randomSecret());
  expect(drawn.filter((t) => !/^[A-Za-z0-9]/.test(t))).toEqual([]);
  // Still random base64url: a mistake that made every token alike would pass the line above.
  expect(new Set(drawn).size).toBe(drawn.length);
  expect(drawn.every((t) => /^[A-Za-z0-9_-]{32}$/.test(t))).toBe(true);
});
