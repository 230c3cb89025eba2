/** Every tunable the provider uses, in one place (docs/configuration.md "Network, timeouts and retries"). */
export const defaults = {
  /** Sent as `PersistPassword: 0` when the input is omitted (docs/decisions.md). */
  persistPassword: false,
  /** TCP + TLS handshake budget for one attempt. */
  connectTimeoutMs: 10_000,
  /** Wait for response headers, and then for the body, of one attempt. */
  requestTimeoutMs: 30_000,
  /** Budget for the whole create, retries included; `customTimeouts.create` overrides it. */
  createTimeoutMs: 120_000,
  /** Attempts after 429/503 (the API said it did nothing); the time budget usually ends them first. */
  maxAttempts: 20,
  /** Attempts after a failed connection: a dead endpoint should fail in seconds, not minutes. */
  maxUnsentAttempts: 4,
  /** First back-off delay; doubles per attempt, capped by maxRetryDelayMs. */
  retryBaseDelayMs: 500,
  /** The longest back-off between two attempts, a `Retry-After` floor aside. */
  maxRetryDelayMs: 20_000,
  /** Larger answers are cut and treated as unusable. */
  maxResponseBytes: 1024 * 1024,
  /** Upper bound on userName length; the spec names none, so this only stops garbage. */
  maxUserNameLength: 256,
} as const;
