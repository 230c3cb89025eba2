// The StorageUser arguments, their rules (checked by the program and by the plugin's check) and the generated name.
import { randomBytes } from "node:crypto";
import { defaults } from "./defaults";
import { CONNECTION_NAME } from "./config";
import { nameFromUrn } from "./identity";
import { ErrorArgs, Failure, messages, StorageUserError } from "./messages";
import { inputs } from "./model";

const reasons = messages.reasons;
/** The value the engine sends for inputs not known yet (during preview). */
export const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";
export const PREVIEW_MARK = "__nameAtUp";
export const SUFFIX = "__nameSuffix";
export const argNames = Object.keys(inputs) as (keyof typeof inputs)[];
const internalNames = new Set(["__provider", "__createTimeoutMs", "__urn", PREVIEW_MARK, SUFFIX]);
/** The inputs as create sees them; `__urn` names the resource in warnings, `__createTimeoutMs` is customTimeouts.create. */
export type UserInputs = {
  userName: string;
  persistPassword: boolean;
  connection?: string;
  rotateAfter?: string;
  __createTimeoutMs?: number;
  __urn?: string;
};

/** The arguments with their defaults filled in, as they are sent and stored. */
export const withDefaults = <P extends Record<string, unknown>>(p: P) => ({
  ...p,
  persistPassword: (p.persistPassword ?? defaults.persistPassword) as boolean,
});
/** Pulumi's default auto-naming: the resource name, "-", and the suffix, cut to fit the length bound. */
export const generatedName = (urn: string, suffix: string) =>
  `${nameFromUrn(urn).slice(0, defaults.maxUserNameLength - suffix.length - 1)}-${suffix}`;
const newSuffix = () => randomBytes(4).toString("hex").slice(0, 7);

/** The name: given; else the user's own (leaving userName out never replaces); else drawn anew, as a check without
 * old inputs means a create or replace. A check sees no preview, so a TypeScript preview is marked and gets an
 * unknown name; the plugin keeps just a suffix, and create makes the name (docs/decisions.md "Auto-naming"). */
export function nameInputs(olds: Record<string, unknown>, news: Record<string, unknown>, plugin: boolean): object {
  if (news.userName !== undefined) return { userName: news.userName };
  if (typeof olds.userName === "string") return { userName: olds.userName };
  if (typeof olds[SUFFIX] === "string") return { [SUFFIX]: olds[SUFFIX] };
  if (plugin) return { [SUFFIX]: newSuffix() };
  const known = news[PREVIEW_MARK] !== true && typeof news.__urn === "string" && news.__urn !== UNKNOWN;
  return { userName: known ? generatedName(news.__urn as string, newSuffix()) : UNKNOWN };
}

export const userNameOf = (inputs: Record<string, unknown>, urn: unknown): string =>
  typeof inputs.userName === "string" ? inputs.userName : generatedName(String(urn), String(inputs[SUFFIX]));

// Only what keeps a request well-formed: the spec states no name rules (2.6), so the API has the last word.
function userNameProblem(value: unknown): string | undefined {
  if (typeof value !== "string") return reasons.userNameNotString(value);
  if (value.length === 0) return reasons.userNameEmpty();
  if (value.trim() === "") return reasons.userNameBlank();
  if (value.trim() !== value) return reasons.userNameSpaces(value.trim());
  // eslint-disable-next-line no-control-regex -- control characters are what this test looks for
  if (/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/.test(value)) return reasons.userNameControl();
  if (value.length > defaults.maxUserNameLength) return reasons.userNameLong(value.length, defaults.maxUserNameLength);
}

const problems: Record<string, (v: unknown) => string | undefined> = {
  userName: userNameProblem,
  persistPassword: (v) => (typeof v === "boolean" ? undefined : reasons.notABoolean(v)),
  connection: (v) =>
    typeof v !== "string"
      ? reasons.connectionNotString(v)
      : CONNECTION_NAME.test(v)
        ? undefined
        : reasons.notAConnectionName(v),
};

/** Names that are no argument (values never echoed; the accepted names listed when asked), then each known value's problem. */
export function inputFailures(values: Record<string, unknown>, listAccepted = true): Failure[] {
  const failures = Object.keys(values)
    .filter((k) => !(argNames as string[]).includes(k) && !internalNames.has(k))
    .map((property) => ({ property, reason: reasons.notAnArgument(listAccepted ? argNames : undefined) }));
  for (const [property, problem] of Object.entries(problems)) {
    const reason =
      values[property] === undefined || values[property] === UNKNOWN ? undefined : problem(values[property]);
    if (reason) failures.push({ property, reason });
  }
  return failures;
}

const DAY_MS = 86_400_000;
const periodUnits: Record<string, number> = { w: 7, d: 1, h: 1 / 24, m: 1 / 1440 };
/** rotateAfter's period in ms: whole numbers with units w, d, h, m ("90d", "1d12h"); else why it is refused. */
export function rotationPeriod(text: string): number | "notADuration" | "notPositive" | "tooLarge" {
  if (/^-\d/.test(text)) return "notPositive";
  const parts = [...text.matchAll(/(\d+)([wdhm])/g)];
  if (parts.length === 0 || parts.map((m) => m[0]).join("") !== text) return "notADuration";
  const days = parts.reduce((sum, [, n, unit]) => sum + Number(n) * periodUnits[unit], 0);
  if (days === 0) return "notPositive";
  return days > defaults.maxRotationDays ? "tooLarge" : Math.round(days * DAY_MS);
}

/** Why a StorageUser's rotateAfter is refused (a value not known yet passes): a bad period, or a name of its own. */
export function rotationRefusal(
  rotateAfter: unknown,
  givenUserName: unknown,
  name: string,
): ErrorArgs<"ROTATION_INVALID"> | undefined {
  if (rotateAfter === undefined || rotateAfter === UNKNOWN) return undefined;
  const text = typeof rotateAfter === "string" ? rotateAfter : String(JSON.stringify(rotateAfter));
  const period = typeof rotateAfter === "string" ? rotationPeriod(rotateAfter) : "notADuration";
  if (period === "tooLarge")
    return ["ROTATION_INVALID", { problem: period, name, text, maxDays: defaults.maxRotationDays }];
  if (typeof period === "string") return ["ROTATION_INVALID", { problem: period, name, text }];
  if (typeof givenUserName === "string" && givenUserName !== UNKNOWN)
    return ["ROTATION_INVALID", { problem: "givenUserName", name, userName: givenUserName }];
}

/** A period as the rotation's warning names it: its two largest units, e.g. "92d3h", "5h12m", "0m". */
export function periodText(ms: number): string {
  let rest = Math.max(0, ms);
  const parts = Object.entries({ d: DAY_MS, h: 3_600_000, m: 60_000 }).map(([unit, size]) => {
    const n = Math.floor(rest / size);
    rest -= n * size;
    return [n, unit] as const;
  });
  const first = Math.min(...[0, 1, 2].filter((i) => parts[i][0] > 0), 2);
  return parts
    .slice(first, first + 2)
    .filter(([n], i) => n > 0 || i === 0)
    .map(([n, unit]) => `${n}${unit}`)
    .join("");
}

/**
 * Refuses the resource options a create-only API cannot honour (docs/lifecycle.md "Resource options"), as the
 * TypeScript class sets them and as the plugin's Construct reads them from the engine's request.
 */
export function refuseUnsupportedOptions(
  name: string,
  opts: { deleteBeforeReplace?: boolean; replaceOnChanges?: readonly string[] } | undefined,
): void {
  const option = opts?.deleteBeforeReplace
    ? "deleteBeforeReplace"
    : opts?.replaceOnChanges?.includes("*")
      ? 'replaceOnChanges: ["*"]'
      : undefined;
  if (option) throw new StorageUserError("INVALID_INPUT", { problem: "unsupportedOption", name, option });
}
