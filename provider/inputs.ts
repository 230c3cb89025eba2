import { defaults } from "./defaults";
import { checkConnectionName } from "./settings";

/** The value the engine sends for inputs that are not known yet (during preview). */
export const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

/** Resolved inputs as the provider sees them in check/create. */
export interface UserInputs {
  userName: string;
  persistPassword: boolean;
  /** Name of an entry of `storage:connections`; absent: `storage:baseUrl` / `storage:accessToken`. */
  connection?: string;
  /** From the resource option customTimeouts.create; not a user-facing argument. */
  __createTimeoutMs?: number;
}

/** Input names a StorageUser accepts; anything else is a typo worth failing on. */
export const argNames = ["userName", "persistPassword", "connection"] as const;
/** `__urn`: the resource's own URN, so the plugin can show warnings under it (engine-log.ts). */
const internalNames = new Set(["__provider", "__createTimeoutMs", "__urn"]);

export interface Failure {
  property: string;
  reason: string;
}

/**
 * The name rules are only those that keep a request well-formed: the spec states no length,
 * character set or uniqueness rule for UserName (section 2.6), so the API has the final word.
 */
export function checkUserName(value: unknown): string | undefined {
  if (value === UNKNOWN) return undefined;
  if (typeof value !== "string") return `must be a string, got ${value === null ? "null" : typeof value}: pass userName: "app-prod"`;
  if (value.length === 0) return `must not be empty: pass the login the storage user should have, e.g. "app-prod"`;
  if (value.trim() === "") return "must not be whitespace only: pass a login such as \"app-prod\"";
  if (value.trim() !== value) return `must not start or end with whitespace: use ${JSON.stringify(value.trim())}`;
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/.test(value)) return "must not contain control characters or line breaks: remove them";
  if (value.length > defaults.maxUserNameLength) return `is ${value.length} characters long; at most ${defaults.maxUserNameLength} are accepted: shorten it`;
  return undefined;
}

export function checkPersistPassword(value: unknown): string | undefined {
  if (value === undefined || value === UNKNOWN || typeof value === "boolean") return undefined;
  return `must be true or false, got ${JSON.stringify(value)?.slice(0, 40) ?? typeof value}: pass persistPassword: true or leave it out (default ${defaults.persistPassword})`;
}

/**
 * Arguments that are not StorageUser arguments (by name only: values are never echoed). The
 * list of accepted names goes in the reason only when asked (the provider's check, whose
 * failures stand alone); the constructor says it once, in its error's "what to do".
 */
export function unknownArgFailures(names: string[], listAccepted = true): Failure[] {
  return names
    .filter((key) => !(argNames as readonly string[]).includes(key) && !internalNames.has(key))
    .map((property) => ({ property, reason: `is not a StorageUser argument${listAccepted ? `: the arguments are ${argNames.join(", ")}` : ""}` }));
}

/** Failures of the values present; `userName` is required only if `requireUserName`. */
export function valueFailures(values: Record<string, unknown>, requireUserName: boolean): Failure[] {
  const failures: Failure[] = [];
  if (!("userName" in values)) {
    if (requireUserName) failures.push({ property: "userName", reason: 'is required: pass userName: "app-prod"' });
  } else {
    const r = checkUserName(values.userName);
    if (r) failures.push({ property: "userName", reason: r });
  }
  const p = checkPersistPassword(values.persistPassword);
  if (p) failures.push({ property: "persistPassword", reason: p });
  if (values.connection !== undefined && values.connection !== UNKNOWN) {
    const c = checkConnectionName(values.connection);
    if (c) failures.push({ property: "connection", reason: c });
  }
  return failures;
}

/** All failures for the inputs the provider's check receives. */
export function validateInputs(news: Record<string, unknown>): Failure[] {
  return [...unknownArgFailures(Object.keys(news)), ...valueFailures(news, true)];
}
