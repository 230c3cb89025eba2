// Load: 500 StorageUsers in one `pulumi up --parallel 32` against the local API limited to
// 20 creates a second (the excess answered 429 with Retry-After: 1). Required: all 500 created,
// none twice, no failed resource. The figures (wall time, POSTs, 429s, attempts per user, peak
// POSTs in one second) are printed. Run it with `npm run load`; `npm test` skips it.
//
// Two engine settings: the default, where the file backend rewrites the whole checkpoint after
// every step (that, not the API, paces the creates: a few a second at 500 resources), and
// PULUMI_SKIP_CHECKPOINTS=true (one checkpoint at the end, as large stacks are often run), where
// the engine outpaces the API and the rate limit answers most of the burst with 429.
import { describe, expect, test } from "vitest";
import { startApiServer } from "../../server/api-server";
import { TestStack } from "../../scripts/stack";

const USERS = 500;
const PARALLEL = 32;
const RATE = 20;
const token = "load-token-3b9e1f07a2";
const TYPE = "pulumi-nodejs:dynamic/storage:StorageUser";

describe.skipIf(!process.env.PULUMI_STORAGE_USER_LOAD)(
  `${USERS} users, --parallel ${PARALLEL}, API limited to ${RATE}/s`,
  () => {
    test.each([
      ["default checkpoints", {}],
      ["PULUMI_SKIP_CHECKPOINTS=true", { PULUMI_SKIP_CHECKPOINTS: "true" }],
    ])("%s: all created once, none failed; figures printed", async (label, engineEnv) => {
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
        const wallMs = Date.now() - started;

        const perName = new Map<string, number>();
        for (const r of api.requests) {
          const name = JSON.parse(r.body).UserName as string;
          perName.set(name, (perName.get(name) ?? 0) + 1);
        }
        const attempts = [...perName.values()].sort((a, b) => a - b);
        const status = (s: number) => api.requests.filter((r) => r.status === s).length;
        const figures = {
          engine: label,
          users: USERS,
          parallel: PARALLEL,
          rateLimitPerSecond: RATE,
          wallSeconds: Number((wallMs / 1000).toFixed(1)),
          createdOnServer: api.users.length,
          posts: api.createAttempts,
          answered200: status(200),
          answered429: status(429),
          otherAnswers: api.requests.length - status(200) - status(429),
          attemptsPerUser: {
            min: attempts[0],
            median: attempts[Math.floor(attempts.length / 2)],
            p95: attempts[Math.floor(attempts.length * 0.95)],
            max: attempts[attempts.length - 1],
          },
          peakPostsInOneSecond: Math.max(0, ...samples.map((n, i) => (i >= 4 ? n - samples[i - 4] : 0))),
          createsPerSecondOverall: Number((api.users.length / (wallMs / 1000)).toFixed(1)),
        };
        console.log(`load figures: ${JSON.stringify(figures, null, 2)}`);
        if (figures.answered429 === 0)
          console.log(`note (${label}): the engine never reached ${RATE} creates/s, so the rate limit did not engage`);

        expect(up.code, up.output.slice(-4000)).toBe(0);
        expect(api.users).toHaveLength(USERS);
        const names = api.users.map((u) => u.Name);
        expect(new Set(names).size).toBe(USERS);
        expect([...names].sort()).toEqual(Array.from({ length: USERS }, (_, i) => `load-${i}`).sort());
        expect(figures.answered200).toBe(USERS);
        expect(figures.otherAnswers).toBe(0);
        expect(api.createAttempts).toBe(USERS + figures.answered429);

        const resources: Array<Record<string, any>> = JSON.parse(
          stack.stateFileText(),
        ).checkpoint.latest.resources.filter((r: any) => r.type === TYPE);
        expect(resources).toHaveLength(USERS);
        expect(resources.filter((r) => r.outputs.__failure !== undefined || r.initErrors)).toHaveLength(0);
        const byName = new Map(api.users.map((u) => [u.Name, String(u.Id)]));
        for (const r of resources) expect(r.id).toBe(byName.get(r.urn.split("::").pop()));
      } finally {
        await stack.dispose();
        await api.close();
      }
    });
  },
);
