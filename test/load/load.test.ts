// Load (`npm run load`; `npm test` skips it): 500 StorageUsers in one `pulumi up --parallel 32`
// against the local API limited to 20 creates a second (the rest answered 429, Retry-After: 1): all
// created once, none failed. Its figures, for docs/failure-modes.md "Load", are printed. Twice: with
// a checkpoint after every step (which paces the creates), and with PULUMI_SKIP_CHECKPOINTS=true.
import { expect, test } from "vitest";
import { startApiServer } from "../../server/api-server";
import { TestStack } from "../../scripts/stack";

const [USERS, PARALLEL, RATE] = [500, 32, 20];
const token = "load-token-3b9e1f07a2";

test.skipIf(!process.env.PULUMI_STORAGE_USER_LOAD).each([
  ["default checkpoints", {}],
  ["PULUMI_SKIP_CHECKPOINTS=true", { PULUMI_SKIP_CHECKPOINTS: "true" }],
])(`${USERS} users, --parallel ${PARALLEL}, API limited to ${RATE}/s, %s: each created once`, async (label, engine) => {
  const api = await startApiServer({ token, rateLimit: { perSecond: RATE, retryAfterSeconds: 1 } });
  const config = { "users:prefix": "load", "users:count": String(USERS) };
  const env = { STORAGE_API_URL: api.url, ...engine };
  const stack = await TestStack.create({
    programDir: "test/programs/users",
    config,
    secrets: { "storage:accessToken": token },
    env,
  });
  try {
    const [started, samples] = [Date.now(), [] as number[]];
    const sampler = setInterval(() => samples.push(api.requests.length), 250);
    const up = await stack.up(["--parallel", String(PARALLEL)]);
    clearInterval(sampler);
    expect(up.code, up.output.slice(-4000)).toBe(0);
    const answered = (status: number) => api.requests.filter((r) => r.status === status).length;
    const counts = new Map<string, number>();
    for (const r of api.requests)
      counts.set(JSON.parse(r.body).UserName, (counts.get(JSON.parse(r.body).UserName) ?? 0) + 1);
    const perUser = [...counts.values()];
    const at = (q: number) =>
      perUser.sort((a, b) => a - b)[Math.min(perUser.length - 1, Math.floor(perUser.length * q))];
    const peak = Math.max(0, ...samples.map((n, i) => (i >= 4 ? n - samples[i - 4] : 0)));
    const figures = {
      wallSeconds: (Date.now() - started) / 1000,
      posts: api.createAttempts,
      answered429: answered(429),
      attemptsPerUser: [at(0.5), at(0.95), at(1)],
      peak,
    };
    console.log(`load figures (${label}): ${JSON.stringify(figures)}`);
    expect(api.users.map((u) => u.Name).sort()).toEqual(Array.from({ length: USERS }, (_, i) => `load-${i}`).sort());
    expect([answered(200), api.requests.length]).toEqual([USERS, USERS + answered(429)]); // nothing but 200 and 429
    const byName = new Map(api.users.map((u) => [u.Name, String(u.Id)]));
    const resources = (stack.checkpoint().resources ?? []).filter(
      (r) => r.type === "pulumi-nodejs:dynamic/storage:StorageUser",
    );
    expect(resources.map((r) => [r.id, r.outputs.__failure])).toEqual(
      resources.map((r) => [byName.get(r.urn.split("::").pop()), undefined]),
    );
    expect(resources).toHaveLength(USERS);
  } finally {
    await stack.dispose();
    await api.close();
  }
});
