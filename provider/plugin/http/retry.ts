import { defaults } from "../../defaults";

/**
 * What one attempt ended with, as far as retrying is concerned. "unsent" means the request
 * provably never reached the API (connection refused, connect timeout): nothing was created.
 */
export type AttemptOutcome = number | "unsent";

export interface RetryPolicy {
  maxAttempts: number;
  maxUnsentAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

export const defaultRetryPolicy: RetryPolicy = {
  maxAttempts: defaults.maxAttempts,
  maxUnsentAttempts: defaults.maxUnsentAttempts,
  baseDelayMs: defaults.retryBaseDelayMs,
  maxDelayMs: defaults.maxRetryDelayMs,
};

/** 429 and 503 mean "not processed, come back later"; anything else may have created a user. */
export function isRetryable(outcome: AttemptOutcome): boolean {
  return outcome === "unsent" || outcome === 429 || outcome === 503;
}

/** Retry-After as delta-seconds or HTTP-date, in ms; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, now: number): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/**
 * Delay before attempt `attempt + 1`, or "stop". Pure: the caller supplies the clock and the
 * jitter source. A server-given Retry-After is honoured as a lower bound, even above maxDelayMs,
 * plus jitter so that parallel creates told the same Retry-After do not return in lockstep;
 * the caller stops when the delay would overrun its time budget.
 */
export function nextDelay(
  attempt: number,
  outcome: AttemptOutcome,
  retryAfter: string | undefined,
  policy: RetryPolicy = defaultRetryPolicy,
  now: number = Date.now(),
  random: () => number = Math.random,
): number | "stop" {
  if (!isRetryable(outcome)) return "stop";
  if (attempt >= (outcome === "unsent" ? policy.maxUnsentAttempts : policy.maxAttempts)) return "stop";
  const backoff = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  // Half fixed, half jitter: spreads a fleet of parallel creates without ever going below half.
  const jittered = backoff / 2 + random() * (backoff / 2);
  const asked = parseRetryAfter(retryAfter, now);
  return Math.round(asked === undefined ? jittered : asked + random() * Math.max(policy.baseDelayMs, asked / 2));
}
