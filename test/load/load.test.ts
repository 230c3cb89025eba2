// Load (`npm run load`; `npm test` skips it): 400 StorageUsers in one `pulumi up --parallel 32`
// against the local API limited to 20 creates a second (the rest answered 429, Retry-After: 1): all
// created once, none failed, a second up sends nothing. Its figures, for docs/failure-modes.md
// "Load", are printed, the time against the rate floor (400 / 20 = 20 s) among them. From a
// TypeScript program and from YAML through the plugin; with a checkpoint after every step (which
// paces the creates), and with PULUMI_SKIP_CHECKPOINTS=true.
import { expect, test } from "vitest";
import { startApiServer } from "../../server/api-server";
import { Lang, usersStack, userType } from "../support/cli-project";

const [USERS, PARALLEL, RATE] = [400, 32, 20];
const token = "load-token-3b9e1f07a2";

const cases = (["TypeScript", "YAML"] as const).flatMap((lang): Array<[Lang, string, Record<string, string>]> => [
  [lang, "default checkpoints", {}],
  [lang, "PULUMI_SKIP_CHECKPOINTS=true", { PULUMI_SKIP_CHECKPOINTS: "true" }],
]);
test.skipIf(!process.env.PULUMI_STORAGE_USER_LOAD).each(cases)(
  `${USERS} users from %s, --parallel ${PARALLEL}, API limited to ${RATE}/s, %s: each created once`,
  async (lang, label, engine) => {
    const api = await startApiServer({ token, rateLimit: { perSecond: RATE, retryAfterSeconds: 1 } });
    const env = { STORAGE_API_URL: api.url, ...engine };
    const stack = await usersStack(lang, { count: USERS, prefix: "load" }, token, env);
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
      const wallSeconds = (Date.now() - started) / 1000;
      const figures = {
        wallSeconds,
        vsRateFloor: Math.round((wallSeconds / (USERS / RATE)) * 100) / 100,
        posts: api.createAttempts,
        answered429: answered(429),
        attemptsPerUser: [at(0.5), at(0.95), at(1)],
        peak,
        // When the first create reached the API and when the last did, in seconds from the start of `up`.
        creates: [samples.findIndex((n) => n > 0) / 4, samples.indexOf(api.requests.length) / 4],
      };
      console.log(`load figures (${lang}, ${label}): ${JSON.stringify(figures)}`);
      expect(api.users.map((u) => u.Name).sort()).toEqual(Array.from({ length: USERS }, (_, i) => `load-${i}`).sort());
      expect([answered(200), api.requests.length]).toEqual([USERS, USERS + answered(429)]); // nothing but 200 and 429
      const byName = new Map(api.users.map((u) => [u.Name, String(u.Id)]));
      const resources = (stack.checkpoint().resources ?? []).filter((r) => r.type === userType(lang));
      expect(resources.map((r) => [r.id, r.outputs.__failure])).toEqual(
        resources.map((r) => [byName.get(r.urn.split("::").pop()), undefined]),
      );
      expect(resources).toHaveLength(USERS);
      const sent = api.requests.length;
      expect((await stack.up()).output).toContain(`${USERS + 1} unchanged`);
      expect(api.requests.length, "a second up sends nothing").toBe(sent);
    } finally {
      await stack.dispose();
      await api.close();
    }
  },
);
