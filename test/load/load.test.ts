// Load (`npm run load`; `npm test` skips it): 500 StorageUsers in one `pulumi up --parallel 32`
// against the local API limited to 20 creates a second, the excess answered 429 with Retry-After: 1.
// Required: all 500 created, none twice, none failed. Printed for docs/failure-modes.md "Load": wall
// time, POSTs, 429s, attempts per user, peak POSTs in one second. Twice: with the file backend's
// checkpoint after every step (which paces the creates), and with PULUMI_SKIP_CHECKPOINTS=true.
import { expect, test } from "vitest";
import { startApiServer } from "../../server/api-server";
import { TestStack } from "../../scripts/stack";

const [USERS, PARALLEL, RATE] = [500, 32, 20];
const token = "load-token-3b9e1f07a2";

test.skipIf(!process.env.PULUMI_STORAGE_USER_LOAD).each([
  ["default checkpoints", {}],
  ["PULUMI_SKIP_CHECKPOINTS=true", { PULUMI_SKIP_CHECKPOINTS: "true" }],
])(
  `${USERS} users, --parallel ${PARALLEL}, API limited to ${RATE}/s, %s: all created once, none failed`,
  async (label, engineEnv) => {
    const api = await startApiServer({ token, rateLimit: { perSecond: RATE, retryAfterSeconds: 1 } });
    const stack = await TestStack.create({
      programDir: "test/programs/users",
      config: { "users:prefix": "load", "users:count": String(USERS) },
      secrets: { "storage:accessToken": token },
      env: { STORAGE_API_URL: api.url, ...engineEnv },
    });
    try {
      const started = Date.now();
      const samples: number[] = [];
      const sampler = setInterval(() => samples.push(api.requests.length), 250);
      const up = await stack.up(["--parallel", String(PARALLEL)]);
      clearInterval(sampler);
      expect(up.code, up.output.slice(-4000)).toBe(0);
      const status = (s: number) => api.requests.filter((r) => r.status === s).length;
      const perName = new Map<string, number>();
      for (const r of api.requests)
        perName.set(JSON.parse(r.body).UserName, (perName.get(JSON.parse(r.body).UserName) ?? 0) + 1);
      const attempts = [...perName.values()].sort((a, b) => a - b);
      const at = (q: number) => attempts[Math.min(attempts.length - 1, Math.floor(attempts.length * q))];
      const figures = {
        engine: label,
        wallSeconds: Number(((Date.now() - started) / 1000).toFixed(1)),
        posts: api.createAttempts,
        answered429: status(429),
        attemptsPerUser: { median: at(0.5), p95: at(0.95), max: at(1) },
        peakPostsInOneSecond: Math.max(0, ...samples.map((n, i) => (i >= 4 ? n - samples[i - 4] : 0))),
      };
      console.log(`load figures: ${JSON.stringify(figures)}`);
      expect([...api.users.map((u) => u.Name)].sort()).toEqual(
        Array.from({ length: USERS }, (_, i) => `load-${i}`).sort(),
      );
      expect(status(200)).toBe(USERS);
      expect(api.requests.length).toBe(USERS + figures.answered429); // nothing but 200 and 429
      const resources = (stack.checkpoint().resources ?? []).filter(
        (r) => r.type === "pulumi-nodejs:dynamic/storage:StorageUser",
      );
      const byName = new Map(api.users.map((u) => [u.Name, String(u.Id)]));
      expect(resources.map((r) => [r.id, r.outputs.__failure])).toEqual(
        resources.map((r) => [byName.get(r.urn.split("::").pop()), undefined]),
      );
      expect(resources).toHaveLength(USERS);
    } finally {
      await stack.dispose();
      await api.close();
    }
  },
);
