/** Every tunable the provider uses, in one place (docs/configuration.md "Network, timeouts and retries"). */
export const defaults = {
  persistPassword: false, // Sent as `PersistPassword: 0` when the input is omitted (docs/decisions.md).
  connectTimeoutMs: 10_000, // TCP + TLS handshake budget for one attempt.
  requestTimeoutMs: 30_000, // Wait for response headers, and then for the body, of one attempt.
  createTimeoutMs: 120_000, // Budget for the whole create, retries included; `customTimeouts.create` overrides it.
  maxAttempts: 20, // Attempts after 429/503 (the API said it did nothing); the time budget usually ends them first.
  maxUnsentAttempts: 4, // Attempts after a failed connection: a dead endpoint should fail in seconds, not minutes.
  retryBaseDelayMs: 500, // First back-off delay; doubles per attempt, capped by maxRetryDelayMs.
  maxRetryDelayMs: 20_000, // The longest back-off between two attempts, a `Retry-After` floor aside.
  paceRisePerCreate: 0.05, // Creates/s the learned pace rises by with each accepted create (a 429 sets it anew).
  maxResponseBytes: 1024 * 1024, // Larger answers are cut and treated as unusable.
  maxRotationDays: 100_000_000, // rotateAfter's bound: a Date holds 100,000,000 days either side of 1970.
  maxUserNameLength: 256, // Upper bound on userName length; the spec names none, so this only stops garbage.
} as const;
