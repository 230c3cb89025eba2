/** The StorageUser arguments and their rules, checked by the program (plain values) and by the plugin's check (the rest). */
import { randomBytes } from "node:crypto";
import { defaults } from "./defaults";
import { checkConnectionName } from "./connections";
import { argumentReasons } from "./errors";

/** The value the engine sends for inputs that are not known yet (during preview). */
export const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

/** The input the program adds during a preview to a user whose name is generated (userNameOf). */
export const PREVIEW_MARK = "__nameAtUp";

/** Input names a StorageUser accepts; anything else is a typo worth failing on. */
export const argNames = ["userName", "persistPassword", "connection"] as const;
/**
 * `__urn`: the resource's own URN, so the plugin can show warnings under it (engine-log.ts).
 * `__nameAtUp`: sent by the program during a preview when it leaves userName out (see userNameOf).
 */
const internalNames = new Set(["__provider", "__createTimeoutMs", "__urn", PREVIEW_MARK]);

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
  if (typeof value !== "string") return argumentReasons.userNameNotString(value);
  if (value.length === 0) return argumentReasons.userNameEmpty;
  if (value.trim() === "") return argumentReasons.userNameBlank;
  if (value.trim() !== value) return argumentReasons.userNameSpaces(value.trim());
  // eslint-disable-next-line no-control-regex -- control characters are what this test looks for
  if (/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/.test(value)) return argumentReasons.userNameControl;
  if (value.length > defaults.maxUserNameLength)
    return argumentReasons.userNameLong(value.length, defaults.maxUserNameLength);
  return undefined;
}

/** `urn:pulumi:stack::project::type::name`; the name may itself contain "::". */
export function nameFromUrn(urn: string): string {
  return urn.split("::").slice(3).join("::");
}

/**
 * The login of a user whose program leaves userName out, following Pulumi's default
 * auto-naming (pulumi-aws and the bridged providers: the resource name, "-", 7 random hex
 * digits): unique on services that refuse a taken name, and new on every replace, which is what
 * lets a replacement (rotation) be created before the old user leaves the stack. The engine's
 * own naming options never reach a dynamic provider (docs/decisions.md "Auto-naming").
 */
export function autoUserName(urn: string): string {
  const suffix = randomBytes(4).toString("hex").slice(0, 7);
  return `${nameFromUrn(urn).slice(0, defaults.maxUserNameLength - suffix.length - 1)}-${suffix}`;
}

/**
 * The checked inputs' userName: the given one; else the one the user already has (an update,
 * so leaving userName out never renames, i.e. replaces, an existing user); else a new one. The
 * engine calls check without the old inputs when it replaces (--replace, replacementTrigger,
 * a replacing change), so a replacement gets a name of its own.
 *
 * A new name is random, and a preview's check and the up's are separate calls that share
 * nothing (a dynamic provider gets no seed from the engine), so a name made at preview would
 * not be the one up creates. The program marks its preview runs (`__nameAtUp`), and a new
 * name is then unknown: reviewers see `[unknown]`, never a name that up will not create.
 */
export function userNameOf(olds: Record<string, unknown>, news: Record<string, unknown>): unknown {
  if (news.userName !== undefined) return news.userName;
  if (typeof olds.userName === "string") return olds.userName;
  if (news[PREVIEW_MARK] === true) return UNKNOWN;
  return typeof news.__urn === "string" && news.__urn !== UNKNOWN ? autoUserName(news.__urn) : UNKNOWN;
}

export function checkPersistPassword(value: unknown): string | undefined {
  if (value === undefined || value === UNKNOWN || typeof value === "boolean") return undefined;
  return argumentReasons.notABoolean(value, defaults.persistPassword);
}

/**
 * Arguments that are not StorageUser arguments (by name only: values are never echoed). The
 * list of accepted names goes in the reason only when asked (the provider's check, whose
 * failures stand alone); the constructor says it once, in its error's "what to do".
 */
export function unknownArgFailures(names: string[], listAccepted = true): Failure[] {
  return names
    .filter((key) => !(argNames as readonly string[]).includes(key) && !internalNames.has(key))
    .map((property) => ({ property, reason: argumentReasons.notAnArgument(listAccepted ? argNames : undefined) }));
}

/** Failures of the values present (a userName left out is generated: see userNameOf). */
export function valueFailures(values: Record<string, unknown>): Failure[] {
  const failures: Failure[] = [];
  if (values.userName !== undefined) {
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
  return [...unknownArgFailures(Object.keys(news)), ...valueFailures(news)];
}
