// Every error class, table-driven: its code, the message template `[CODE] what happened: what to
// do`, the cause kept, and no secret in the message even when the outside text it quotes (an API
// error body, an undici error, a Location header, a last answer) carries the token.
import { describe, expect, test } from "vitest";
import * as errors from "../provider/errors";
import { configErrors, refusals, StorageUserError } from "../provider/errors";
import { neverShow, quote, redact } from "../provider/redaction";

const token = "errors-test-token-0123456789";
neverShow(token);
const echo = `bad header Authorization: ${token}`;
const cause = new Error("underlying");
const failure = { code: "OUTCOME_UNKNOWN", what: "w", todo: "t", at: "2026-01-01T00:00:00Z" } as const;

const cases: Array<[string, StorageUserError, string, unknown?]> = [
  ["StorageUserError", new errors.StorageUserError("REJECTED", "what", "todo", cause), "REJECTED", cause],
  ["InvalidInputError", new errors.InvalidInputError("bad", "fix it"), "INVALID_INPUT"],
  ["ConfigMissingError", new errors.ConfigMissingError("absent", "set it"), "CONFIG_MISSING"],
  ["ConfigInvalidError", new errors.ConfigInvalidError("malformed", "fix it"), "CONFIG_INVALID"],
  ["ConfigNotSecretError", new errors.ConfigNotSecretError("storage:connections.eu.accessToken", "Pulumi.dev.yaml", true, "STORAGE_ACCESS_TOKEN_EU"), "CONFIG_NOT_SECRET"],
  ["UnsupportedOptionError", new errors.UnsupportedOptionError("app", "deleteBeforeReplace", "why", "todo"), "INVALID_INPUT"],
  ["UnauthorizedError", new errors.UnauthorizedError(401, echo), "UNAUTHORIZED"],
  ["EndpointNotFoundError", new errors.EndpointNotFoundError(404, "https://api.example.test/storage/users"), "ENDPOINT_NOT_FOUND"],
  ["NameTakenError", new errors.NameTakenError("app-prod", echo), "NAME_TAKEN"],
  ["RejectedError", new errors.RejectedError(400, echo), "REJECTED"],
  ["RedirectRefusedError", new errors.RedirectRefusedError(302, `https://elsewhere.test/?t=${token}`, "another origin"), "REDIRECT_REFUSED"],
  ["UnreachableError", new errors.UnreachableError("https://api.example.test/storage/users", echo, "check the URL", cause), "UNREACHABLE", cause],
  ["RetriesExhaustedError", new errors.RetriesExhaustedError(3, `HTTP 429: ${echo}`), "RETRIES_EXHAUSTED"],
  ["RecordedFailureError", new errors.RecordedFailureError("OUTCOME_UNKNOWN", "sent, no verdict", "check", "unconfirmed-1", {}, cause), "OUTCOME_UNKNOWN", cause],
  ["RecordedFailureError (unusable)", new errors.RecordedFailureError("RESPONSE_UNUSABLE", "created, unusable", "delete it", "7", { userId: 7 }), "RESPONSE_UNUSABLE"],
  ["ImportUnsupportedError", new errors.ImportUnsupportedError("app"), "IMPORT_UNSUPPORTED"],
  ["PluginCannotStartError", new errors.PluginCannotStartError("/", ["@pulumi/pulumi", "pulumi-storage-user"], true), "PLUGIN_CANNOT_START"],
  ["ConfigNotSecretError (Automation API)", new errors.ConfigNotSecretError("storage:accessToken", "Pulumi.dev.yaml", false, "STORAGE_ACCESS_TOKEN", false, true), "CONFIG_NOT_SECRET"],
  ["repeatedFailure", errors.repeatedFailure("unconfirmed-1", failure, {}), "OUTCOME_UNKNOWN"],
  ...Object.entries(refusals).map(([k, make]) => [`refusals.${k}`, (make as (...a: unknown[]) => StorageUserError)("app", [{ property: "pasword", reason: "is not a StorageUser argument" }], ["userName"]), "INVALID_INPUT"] as [string, StorageUserError, string]),
  ...Object.entries(configErrors).map(([k, make]) => {
    const args: Record<string, unknown[]> = { missing: ["address", "eu", "storage:connections.eu.baseUrl", "STORAGE_API_URL_EU", true], unknownEntryKeys: ["storage:connections.eu", ["baseURL"]], unknownKeys: [["storage:accessTokn"]], notAbsoluteUrl: ["storage:baseUrl", "api.example.test"] };
    const err = (make as (...a: unknown[]) => StorageUserError)(...(args[k] ?? ["storage:connections.eu.accessToken", "eu", "STORAGE_ACCESS_TOKEN_EU", true]));
    return [`configErrors.${k}`, err, err instanceof errors.ConfigMissingError ? "CONFIG_MISSING" : "CONFIG_INVALID"] as [string, StorageUserError, string];
  }),
];

describe.each(cases)("%s", (_name, err, code, expectedCause) => {
  test("code and the message template", () => {
    expect(err).toBeInstanceOf(StorageUserError);
    expect(err.code).toBe(code);
    expect(err.message).toMatch(new RegExp(`^\\[${code}\\] \\S[\\s\\S]*: \\S[\\s\\S]*$`));
    expect(err.name).toBe(err.constructor.name);
  });
  test("the cause is kept", () => expect(err.cause).toBe(expectedCause));
  test("no secret in the message", () => {
    expect(err.message).not.toContain(token);
    if (err.message.includes("Authorization")) expect(err.message).toContain("[redacted]");
  });
});

test("every code has a class or factory in the table, and every code in the table is listed", () => {
  const used = new Set(cases.map(([, , code]) => code));
  expect([...errors.errorCodes].filter((c) => !used.has(c))).toEqual([]);
  expect([...used].filter((c) => !(errors.errorCodes as readonly string[]).includes(c))).toEqual([]);
});

test("every class of errors.ts is in the table", () => {
  const classes = Object.entries(errors).filter(([, v]) => typeof v === "function" && v.prototype instanceof Error).map(([k]) => k);
  const covered = new Set(cases.map(([, err]) => err.constructor.name));
  expect(classes.filter((c) => !covered.has(c))).toEqual([]);
});

test("the recorded-failure messages name what may exist and the way out", () => {
  const unusable = errors.responseUnusable(7, "app-prod", "https://api.storage.example.com/", ["S3Connection.SecretKey is missing"]);
  expect(unusable.what).toContain("storage user 7 ('app-prod') was created on https://api.storage.example.com/ but");
  expect(unusable.code).toBe("RESPONSE_UNUSABLE");
  expect(`${unusable.what}: ${unusable.todo}`).toContain("delete user 7 on the service, then run `pulumi up --replace <urn>` (urn from `pulumi stack --show-urns`)");
  const urn = "urn:pulumi:dev::infra::pulumi-nodejs:dynamic/storage:StorageUser::app";
  expect(errors.responseUnusable(7, "app-prod", "https://api.storage.example.com/", [], urn).todo).toContain(`then run \`pulumi up --replace '${urn}'\` to create a new user, or \`pulumi state delete '${urn}'\` to forget this one`);
  const unknown = errors.outcomeUnknown("app-prod", "https://api.storage.example.com/", { detail: "HTTP 502" });
  expect(unknown.what).toBe(
    "the create request for 'app-prod' was sent but no verdict came back (HTTP 502): a storage user 'app-prod' may have been created on https://api.storage.example.com/; the stack records it as unconfirmed so the next up does not create a second one",
  );
  expect(errors.outcomeUnknown("app-prod", "https://api.storage.example.com/", { problems: ["Id is missing"] }).what).toContain("names no Id (Id is missing)");
  expect(errors.repeatedFailure("u", failure, {}).message).toBe("[OUTCOME_UNKNOWN] w (recorded 2026-01-01T00:00:00Z; Pulumi will not create it again on its own): t");
});

test("redaction: registered tokens and given secrets, before text is cut", () => {
  expect(redact(`a ${token} b`)).toBe("a [redacted] b");
  expect(redact("one three", ["three"])).toBe("one [redacted]"); // given secrets are redacted too
  expect(redact("abc", ["abc"])).toBe("abc"); // 3 characters or fewer: too likely to be ordinary text
  const straddling = `${"x".repeat(290)}${token}`;
  expect(quote(straddling, 300)).not.toContain(token.slice(0, 10));
});

test("NAME_TAKEN names the likely causes, most common first, and never says to delete the live user of a replace", () => {
  const message = new errors.NameTakenError("app-prod", "").message;
  const causes = ["this stack let that user go earlier (pulumi destroy, the StorageUser removed from the program, or replaced)", "another stack or person", "a force-stopped pulumi up"];
  const at = causes.map((c) => message.indexOf(c));
  expect(at.every((i) => i > 0), message).toBe(true);
  expect([...at].sort((a, b) => a - b)).toEqual(at);
  expect(message).toContain("USER_LEFT_STACK or REPLACE_LEAVES_USER warning and a StorageUserLedger's forgotten list name it");
  expect(message).toContain("`pulumi stack export | npx pulumi-storage-user pending`");
  expect(message).toContain("the existing user is the live one: keep it");
});
