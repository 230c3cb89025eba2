// The local storage API's own answers, which no provider test reaches: the decided error answers
// and the rate limit. Its success shape and each scripted fault are test/unit/create.test.ts's: the
// provider maps every field of the answer, and each fault's outcome is counted there.
import { afterEach, beforeEach, expect, test } from "vitest";
import { ApiServer, startApiServer } from "../../server/api-server";
import { randomSecret } from "../../server/tokens";

const token = "srv-test-token-0001";
/** The error answer's body (server/api-server.ts). */
type ErrorBody = { error: { code: string } };
let api: ApiServer;
beforeEach(async () => void (api = await startApiServer({ token })));
afterEach(() => api.close());

const json = "application/json";
/** A create; `authorization` null sends no such header. */
const post = (body: unknown, authorization: string | null = token, type = json) =>
  fetch(`${api.url}/storage/users`, {
    method: "POST",
    headers: { "content-type": type, ...(authorization === null ? {} : { authorization }) },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });

test.each<[string, unknown, string | null, string, number, string]>([
  ["no token", { UserName: "x" }, null, json, 401, "unauthorized"],
  ["a wrong token", { UserName: "x" }, "nope", json, 403, "forbidden"],
  ["the bearer scheme (the spec sends the bare token)", { UserName: "x" }, `Bearer ${token}`, json, 403, "forbidden"],
  ["a text body", { UserName: "x" }, token, "text/plain", 415, "unsupported_media_type"],
  ["broken JSON", "{", token, json, 400, "invalid_json"],
  ["an array", [], token, json, 400, "invalid_body"],
  ["no UserName", { PersistPassword: 0 }, token, json, 400, "invalid_user_name"],
  ["an empty UserName", { UserName: "" }, token, json, 400, "invalid_user_name"],
  ["PersistPassword 2", { UserName: "x", PersistPassword: 2 }, token, json, 400, "invalid_persist_password"],
])("POST /storage/users refuses %s, storing nothing", async (_what, body, authorization, type, status, code) => {
  const res = await post(body, authorization, type);
  expect([res.status, ((await res.json()) as ErrorBody).error.code]).toEqual([status, code]);
  expect(api.users).toHaveLength(0);
});

test("409 for a name that exists, 404 elsewhere, 405 for GET", async () => {
  await post({ UserName: "dup" });
  expect((await post({ UserName: "dup" })).status).toBe(409);
  expect((await fetch(`${api.url}/storage/other`, { method: "POST" })).status).toBe(404);
  expect((await fetch(`${api.url}/storage/users`)).status).toBe(405);
  expect(api.users).toHaveLength(1);
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

// A token that begins with "-" reads as a flag where a tool takes it on the command line
// (test/e2e/engine/secrets.test.ts sets one as README says).
test("the token it generates never begins with '-'", () => {
  const drawn = Array.from({ length: 4096 }, () => randomSecret());
  expect(drawn.filter((t) => !/^[A-Za-z0-9]/.test(t))).toEqual([]);
  // Still random base64url: a mistake that made every token alike would pass the line above.
  expect(new Set(drawn).size).toBe(drawn.length);
  expect(drawn.every((t) => /^[A-Za-z0-9_-]{32}$/.test(t))).toBe(true);
});
