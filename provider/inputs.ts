/** The StorageUser arguments and their rules, checked by the program (plain values) and by the plugin's check (the rest). */
import { randomBytes } from "node:crypto";
import { defaults } from "./defaults";
import { CONNECTION_NAME } from "./config";
import { messages } from "./messages";

const reasons = messages.reasons;
/** The value the engine sends for inputs not known yet (during preview). */
export const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";
/** The input a TypeScript program adds during a preview to a user whose name is generated (see userNameOf). */
export const PREVIEW_MARK = "__nameAtUp";
/** The plugin's generated-name suffix, kept as an input so a pending create names its user (see userNameOf). */
export const SUFFIX = "__nameSuffix";
/** Input names a StorageUser accepts; anything else is a typo worth failing on. */
export const argNames = ["userName", "persistPassword", "connection"] as const;
/** `__urn`: the resource's URN, so the plugin's warnings name it (engine-log.ts). */
const internalNames = new Set(["__provider", "__createTimeoutMs", "__urn", PREVIEW_MARK, SUFFIX]);

export interface Failure {
  property: string;
  reason: string;
}

/** Resolved inputs as the provider's create sees them. */
export interface UserInputs {
  userName: string;
  persistPassword: boolean;
  /** A named connection; absent: the default one. */
  connection?: string;
  /** From the resource option customTimeouts.create. */
  __createTimeoutMs?: number;
  __urn?: string;
  __nameSuffix?: string;
}

/** The resource's name in `urn:pulumi:stack::project::type::name` (the name may contain "::"). */
export const nameFromUrn = (urn: string) => urn.split("::").slice(3).join("::");

/** A generated name: the resource name, "-", and `suffix` (Pulumi's default auto-naming), cut to fit the length bound. */
export const generatedName = (urn: string, suffix: string) =>
  `${nameFromUrn(urn).slice(0, defaults.maxUserNameLength - suffix.length - 1)}-${suffix}`;
const newSuffix = () => randomBytes(4).toString("hex").slice(0, 7);

/**
 * The checked inputs' name: the given userName; else the one the user already has (an update: leaving
 * userName out never replaces); else a new one, drawn at each check without old inputs, which is
 * exactly when the engine creates or replaces. A check gets no sign of a preview, so a name drawn
 * there would not be the one up creates: TypeScript programs mark their previews (PREVIEW_MARK) and
 * get an unknown name; the plugin (`plugin`) keeps only the drawn suffix as an input, and create
 * makes the name, so preview shows it unknown (docs/decisions.md "Auto-naming").
 */
export function nameInputs(olds: Record<string, unknown>, news: Record<string, unknown>, plugin: boolean): object {
  if (news.userName !== undefined) return { userName: news.userName };
  if (typeof olds.userName === "string") return { userName: olds.userName };
  if (typeof olds[SUFFIX] === "string") return { [SUFFIX]: olds[SUFFIX] };
  if (plugin) return { [SUFFIX]: newSuffix() };
  if (news[PREVIEW_MARK] === true || typeof news.__urn !== "string" || news.__urn === UNKNOWN)
    return { userName: UNKNOWN };
  return { userName: generatedName(news.__urn, newSuffix()) };
}

/** The name a create sends: given, or made from the plugin's suffix. */
export const userNameOf = (inputs: Record<string, unknown>, urn: unknown): string =>
  typeof inputs.userName === "string" ? inputs.userName : generatedName(String(urn), String(inputs[SUFFIX]));

/** The name rules keep a request well-formed only: the spec states none (2.6), so the API has the final word. */
function userNameProblem(value: unknown): string | undefined {
  if (typeof value !== "string") return reasons.userNameNotString(value);
  if (value.length === 0) return reasons.userNameEmpty();
  if (value.trim() === "") return reasons.userNameBlank();
  if (value.trim() !== value) return reasons.userNameSpaces(value.trim());
  // eslint-disable-next-line no-control-regex -- control characters are what this test looks for
  if (/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/.test(value)) return reasons.userNameControl();
  if (value.length > defaults.maxUserNameLength) return reasons.userNameLong(value.length, defaults.maxUserNameLength);
  return undefined;
}

/** A `connection` argument's problem, if any. */
export const connectionProblem = (v: unknown) =>
  typeof v !== "string"
    ? reasons.connectionNotString(v)
    : CONNECTION_NAME.test(v)
      ? undefined
      : reasons.notAConnectionName(v);

/**
 * Failures of the inputs: names that are no argument (values never echoed; the accepted names in
 * the reason when `listAccepted`), then each known value present and not unknown.
 */
export function inputFailures(values: Record<string, unknown>, listAccepted = true): Failure[] {
  const failures = Object.keys(values)
    .filter((k) => !(argNames as readonly string[]).includes(k) && !internalNames.has(k))
    .map((property) => ({ property, reason: reasons.notAnArgument(listAccepted ? argNames : undefined) }));
  const problems = {
    userName: userNameProblem,
    persistPassword: (v: unknown) => (typeof v === "boolean" ? undefined : reasons.notABoolean(v)),
    connection: connectionProblem,
  };
  for (const [property, problem] of Object.entries(problems)) {
    const v = values[property];
    const reason = v === undefined || v === UNKNOWN ? undefined : problem(v);
    if (reason) failures.push({ property, reason });
  }
  return failures;
}
