// The retry policy is a pure function: (attempt, outcome, Retry-After) -> delay | "stop".
import { describe, expect, test } from "vitest";
import { isRetryable, nextDelay, parseRetryAfter, RetryPolicy } from "../../provider/plugin/http/retry";

const policy: RetryPolicy = { maxAttempts: 5, maxUnsentAttempts: 3, baseDelayMs: 100, maxDelayMs: 1000 };
const mid = () => 0.5;

describe("retry policy", () => {
  test("only outcomes that provably created nothing are retried", () => {
    expect([429, 503, "unsent"].map((o) => isRetryable(o as never))).toEqual([true, true, true]);
    for (const status of [200, 201, 400, 401, 403, 404, 409, 500, 502, 504]) {
      expect(nextDelay(1, status, undefined, policy, 0, mid)).toBe("stop");
    }
  });

  test("backs off exponentially with bounded jitter, capped", () => {
    expect([1, 2, 3, 4].map((a) => nextDelay(a, 503, undefined, policy, 0, mid))).toEqual([75, 150, 300, 600]);
    expect(nextDelay(4, 503, undefined, policy, 0, () => 0)).toBe(400); // never below half
    expect(nextDelay(4, 503, undefined, { ...policy, maxAttempts: 9 }, 0, () => 1)).toBe(800);
    expect(nextDelay(8, 503, undefined, { ...policy, maxAttempts: 9 }, 0, () => 1)).toBe(1000); // cap
  });

  test("stops after the attempt limit for its kind", () => {
    expect(nextDelay(4, 429, undefined, policy, 0, mid)).not.toBe("stop");
    expect(nextDelay(5, 429, undefined, policy, 0, mid)).toBe("stop");
    expect(nextDelay(2, "unsent", undefined, policy, 0, mid)).not.toBe("stop");
    expect(nextDelay(3, "unsent", undefined, policy, 0, mid)).toBe("stop");
  });

  test("Retry-After is a floor, in seconds or as an HTTP date, with jitter above it", () => {
    expect(nextDelay(1, 429, "3", policy, 0, () => 0)).toBe(3000);
    expect(nextDelay(1, 429, "3", policy, 0, () => 1)).toBe(4500); // jitter up to half of it
    const now = Date.parse("2026-01-01T00:00:00Z");
    expect(parseRetryAfter("Thu, 01 Jan 2026 00:00:07 GMT", now)).toBe(7000);
    expect(parseRetryAfter("soon", now)).toBeUndefined();
    expect(nextDelay(1, 429, "soon", policy, now, mid)).toBe(75); // unreadable: plain back-off
    expect(nextDelay(1, 429, "0", policy, 0, () => 0)).toBe(0);
  });
});
