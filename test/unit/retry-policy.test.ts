// The retry policy is a pure function: (attempt, outcome, Retry-After, now, jitter) -> delay | "stop", on the defaults;
// the pace, on a clock the test moves, is when each create of one provider process may go.
import { expect, test } from "vitest";
import { pace, retryDelay } from "../../provider/core/api";

const [zero, mid, one] = [() => 0, () => 0.5, () => 1];

test("only outcomes that provably created nothing are retried", () => {
  expect([429, 503, "unsent" as const].map((o) => retryDelay(1, o, undefined, 0, mid))).toEqual([375, 375, 375]);
  for (const status of [200, 201, 400, 401, 403, 404, 409, 500, 502, 504])
    expect(retryDelay(1, status, undefined, 0, mid)).toBe("stop");
});

test("backs off exponentially from 500 ms with jitter in its upper half, capped at 20 s", () => {
  expect([1, 2, 3, 4].map((a) => retryDelay(a, 503, undefined, 0, zero))).toEqual([250, 500, 1000, 2000]);
  expect(retryDelay(4, 503, undefined, 0, one)).toBe(4000);
  expect(retryDelay(12, 503, undefined, 0, one)).toBe(20_000);
});

test("stops after the attempt limit for its kind: 20 for 429/503, 4 for an unsent request", () => {
  expect([19, 20].map((a) => retryDelay(a, 429, undefined, 0, mid) === "stop")).toEqual([false, true]);
  expect([3, 4].map((a) => retryDelay(a, "unsent", undefined, 0, mid) === "stop")).toEqual([false, true]);
});

test("Retry-After is a floor, in seconds or as an HTTP date, with jitter above it; unreadable, the back-off", () => {
  expect(retryDelay(1, 429, "3", 0, zero)).toBe(3000);
  expect(retryDelay(1, 429, "3", 0, one)).toBe(4500);
  expect(retryDelay(1, 429, "60", 0, zero)).toBe(60_000); // above the cap: the server said so
  const now = Date.parse("2026-01-01T00:00:00Z");
  expect(retryDelay(1, 429, "Thu, 01 Jan 2026 00:00:07 GMT", now, zero)).toBe(7000);
  expect(retryDelay(1, 429, "soon", now, zero)).toBe(250);
  expect(retryDelay(1, 429, "0", 0, zero)).toBe(0);
});

test("the pace: none until a 429, which pauses every create for its Retry-After; then the rate accepted in the last second, rising by 0.05/s per create", () => {
  let now = 0;
  const p = pace({ now: () => now, sleep: () => Promise.resolve(), random: zero });
  expect([p.turn(), p.turn()]).toStrictEqual([0, 0]);
  for (; now < 200; now += 10) p.accepted(); // 20 in the last second
  p.throttled(1000);
  expect([p.turn(), p.turn(), p.turn()]).toStrictEqual([1200, 1250, 1300]);
  now = 1300;
  p.accepted();
  expect([p.turn(), p.turn()]).toStrictEqual([1350, 1350 + 1000 / 20.05]);
  now = 2500; // a second 429, none accepted in the last second: 1/s
  p.throttled(2000);
  expect([p.turn(), p.turn()]).toStrictEqual([4500, 5500]);
});
