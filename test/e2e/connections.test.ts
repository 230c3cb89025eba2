// Several services and accounts in one program (named connections), and where each user lives,
// through the real CLI against two local API servers with different tokens (test/programs/options,
// docs/configuration.md "Named connections", docs/lifecycle.md "Where a user lives"). How the plugin
// reads storage:connections is test/unit/config.test.ts's; preview without a token is
// lifecycle.test.ts's; a malformed connection name is lifecycle.test.ts's refusals'.
import { afterAll, beforeAll, expect, test } from "vitest";
import { ApiServer, startApiServer } from "../../server/api-server";
import { TestStack } from "../../scripts/stack";
import { failed, ok } from "../support/cli-project";
import { errorSaid, warningSaid } from "../support/said";

const [tokenA, tokenB] = ["connections-token-a-3f9c1d", "connections-token-b-8e2a7b"];
let a: ApiServer;
let b: ApiServer;
let stack: TestStack;
const home = { name: "home", userName: "c-home" };
const eu = { name: "eu", userName: "c-eu", connection: "eu" };
beforeAll(async () => {
  [a, b] = await Promise.all([startApiServer({ token: tokenA }), startApiServer({ token: tokenB })]);
  stack = await TestStack.create({
    programDir: "test/programs/options",
    config: {
      "storage:baseUrl": a.url,
      "storage:connections.eu.baseUrl": b.url,
      "options:users": JSON.stringify([home, eu]),
    },
  });
});
afterAll(async () => {
  await stack?.dispose();
  await a?.close();
  await b?.close();
});

const href = (url: string) => new URL(url).href;
const posts = () => a.createAttempts + b.createAttempts;
const urnOf = async (name: string) => String((await stack.resources()).find((r) => r.urn.endsWith(`::${name}`))!.urn);
const setUsers = (list: Array<Record<string, unknown>>) =>
  stack.must(["config", "set", "options:users", JSON.stringify(list)]);
const outputs = async () =>
  (await stack.outputs()).users as Record<string, { id: string; baseUrl: string | null; connection: string | null }>;
const setEuUrl = (url: string) => stack.must(["config", "set", "--path", "storage:connections.eu.baseUrl", url]);

test("an unknown connection name fails preview naming the keys to set", async () => {
  const nope = { name: "x", userName: "c-x", connection: "nope" };
  const r = failed(await stack.preview(["-c", `options:users=${JSON.stringify([home, eu, nope])}`]));
  await setUsers([home, eu]); // -c saved it
  const keys = { key: "storage:connections.nope.baseUrl", env: "STORAGE_API_URL_NOPE", path: true };
  expect(r.output).toContain(errorSaid("CONFIG_MISSING", { setting: "address", connection: "nope", ...keys }));
  expect(posts()).toBe(0);
});

test("up creates each user on its own service with its own token; tokens are no resource input", async () => {
  await stack.must(["config", "set", "--secret", "storage:accessToken"], { input: tokenA });
  await stack.must(["config", "set", "--path", "--secret", "storage:connections.eu.accessToken"], { input: tokenB });
  ok(await stack.up());
  expect([a.users.map((u) => u.Name), b.users.map((u) => u.Name)]).toEqual([["c-home"], ["c-eu"]]);
  // Each server accepts only its own token: both creates were authorized.
  expect([...a.requests, ...b.requests].map((q) => `${q.status} ${q.authorized}`)).toEqual(["200 true", "200 true"]);
  const out = await outputs();
  expect(out.home).toEqual({ id: String(a.users[0].Id), userName: "c-home", baseUrl: href(a.url), connection: null });
  expect(out.eu).toEqual({ id: String(b.users[0].Id), userName: "c-eu", baseUrl: href(b.url), connection: "eu" });
  for (const res of await stack.resources()) {
    expect(Object.keys(res.inputs).filter((k) => /token/i.test(k))).toEqual([]);
    expect(JSON.parse(res.outputs.account).baseUrl, "the service is plain in state").toEqual(expect.any(String));
  }
  expect([tokenA, tokenB].some((t) => stack.stateFileText().includes(t))).toBe(false);
});

test("a connection now pointing at another service: preview and up warn naming the user and both services; nothing created or forgotten", async () => {
  await setEuUrl(a.url);
  const warning = `StorageUser 'c-eu' (id ${b.users[0].Id}) lives on ${href(b.url)}, but connection 'eu' now points at ${href(a.url)}`;
  const pv = ok(await stack.preview());
  expect(pv.output).toContain(warning);
  expect(pv.output).toMatch(/3 unchanged/);
  const up = ok(await stack.up());
  expect(up.output).toContain(warning);
  expect(up.output).toMatch(
    /`pulumi up --replace 'urn:pulumi:[^']+::pulumi-nodejs:dynamic\/storage:StorageUser::[^']+'`/,
  );
  expect(posts()).toBe(2);
  expect((await outputs()).eu.baseUrl).toBe(href(b.url));
});

test("the same service under a new address: STORAGE_SERVICE_NEW_ADDRESS=<it> pulumi up records it; plain refresh does not", async () => {
  const renamed = b.url.replace("127.0.0.1", "localhost");
  await setEuUrl(renamed);
  const pv = await stack.preview();
  const user = { id: String(b.users[0].Id), userName: "c-eu", service: href(b.url), connection: "connection 'eu'" };
  expect(pv.output).toContain(warningSaid("SERVICE_MOVED", { ...user, now: href(renamed), urn: await urnOf("eu") }));
  ok(await stack.refresh());
  expect((await outputs()).eu.baseUrl).toBe(href(b.url));
  const moved = ok(await stack.up([], { env: { STORAGE_SERVICE_NEW_ADDRESS: renamed } }));
  expect(moved.output).toContain(warningSaid("SERVICE_READDRESSED", { ...user, now: href(renamed) }));
  expect((await outputs()).eu).toEqual(expect.objectContaining({ id: String(b.users[0].Id), baseUrl: href(renamed) }));
  expect(posts()).toBe(2); // pointing where the user is recorded ends the warning: the next test's first up
});

test("changing a user's connection never moves it: same service, the new name is recorded; another service, a warning", async () => {
  // 'home' to connection 'alias_a', another name for service A: an update with no API call.
  await stack.must(["config", "set", "--path", "storage:connections.alias_a.baseUrl", a.url]);
  await setUsers([{ ...home, connection: "alias_a" }, eu]);
  const same = ok(await stack.up());
  expect(same.output).not.toContain("lives on");
  expect((await outputs()).home).toEqual(
    expect.objectContaining({ id: String(a.users[0].Id), baseUrl: href(a.url), connection: "alias_a" }),
  );
  // 'home' to connection 'eu' (service B): it stays on A, said at up (the same check runs at preview).
  await setUsers([{ ...home, connection: "eu" }, eu]);
  const r = ok(await stack.up());
  const user = { id: String(a.users[0].Id), userName: "c-home", service: href(a.url), urn: await urnOf("home") };
  // Connection 'eu' points at service B under the address the test before recorded.
  const now = href(b.url.replace("127.0.0.1", "localhost"));
  const change = { from: "connection 'alias_a'", connection: "connection 'eu'", now };
  expect(r.output).toContain(warningSaid("CONNECTION_CHANGED", { ...user, ...change }));
  expect(posts()).toBe(2);
  expect((await outputs()).home).toEqual(
    expect.objectContaining({ id: String(a.users[0].Id), baseUrl: href(a.url), connection: "eu" }),
  );
});

test("environment fallbacks per name: STORAGE_API_URL_<NAME>, STORAGE_ACCESS_TOKEN_<NAME>", async () => {
  await setUsers([{ ...home, connection: "eu" }, eu, { name: "ci", userName: "c-ci", connection: "ci" }]);
  ok(await stack.up([], { env: { STORAGE_API_URL_CI: b.url, STORAGE_ACCESS_TOKEN_CI: tokenB } }));
  expect(b.users.map((u) => u.Name)).toEqual(["c-eu", "c-ci"]);
  expect((await outputs()).ci).toEqual(expect.objectContaining({ baseUrl: href(b.url), connection: "ci" }));
});
