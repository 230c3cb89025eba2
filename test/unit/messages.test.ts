// The catalogue, table-driven over every message: the code, the template `[CODE] what happened: what
// to do`, the cause kept, no secret in the message or the details even when the outside text they
// quote carries the token; every code with its row in docs/errors.md, and nothing else.
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, test } from "vitest";
import * as messagesModule from "../../provider/messages";
import {
  ErrorArgs,
  errorCodes,
  errorText,
  messages,
  neverShow,
  redact,
  StorageUserError,
  warningCodes,
} from "../../provider/messages";
import { repoRoot } from "../../scripts/toolchain";

const token = "errors-test-token-0123456789";
neverShow(token);
const echo = `bad header Authorization: ${token}`;
const cause = new Error("underlying");
const failure = { problem: "recorded", what: "w", todo: "t", at: "2026-01-01T00:00:00Z" } as const;
const service = "https://api.storage.example.com/";
const url = "https://api.example.test/storage/users";
const reach = { url, detail: echo, source: "storage:baseUrl" };
const keys = { key: "storage:accessToken", env: "STORAGE_ACCESS_TOKEN", path: false };
const eu = { connection: "eu", env: "STORAGE_API_URL_EU" };
const pasword = { property: "pasword", reason: "r" };

const cases: ErrorArgs[] = [
  ["INVALID_INPUT", { problem: "noArguments", name: "app" }],
  ["INVALID_INPUT", { problem: "invalidArguments", name: "app", failures: [pasword], accepted: ["userName"] }],
  ["INVALID_INPUT", { problem: "notADuration", text: "5 minutes" }],
  ["INVALID_INPUT", { problem: "unsupportedOption", name: "app", option: "deleteBeforeReplace" }],
  ["INVALID_INPUT", { problem: "ledgerWithoutUsers", name: "ledger" }],
  ["ROTATION_INVALID", { problem: "notADuration", name: "app", text: "90 days" }],
  ["ROTATION_INVALID", { problem: "notPositive", name: "app", text: "0d" }],
  ["ROTATION_INVALID", { problem: "tooLarge", name: "app", text: "99999999999d", maxDays: 100_000_000 }],
  ["ROTATION_INVALID", { problem: "givenUserName", name: "app", userName: "app-prod" }],
  ["CONFIG_MISSING", { setting: "address", ...eu, key: "storage:connections.eu.baseUrl", path: true }],
  ["CONFIG_MISSING", { setting: "access token", ...keys }],
  ["CONFIG_MISSING", { setting: "access token", ...eu, key: "", env: "STORAGE_ACCESS_TOKEN_EU", path: false }],
  ["CONFIG_INVALID", { problem: "unknownKeys", keys: [`${keys.key}n`], known: [keys.key], suggest: keys.key }],
  ["CONFIG_INVALID", { problem: "notAnObject", key: "storage:connections", expected: "an object of connections" }],
  ["CONFIG_INVALID", { problem: "notAString", key: "storage:accessToken", secret: true, path: false }],
  ["CONFIG_INVALID", { problem: "badConnectionName", key: "storage:connections", name: "EU" }],
  ["CONFIG_INVALID", { problem: "tokenWhitespace", source: "STORAGE_ACCESS_TOKEN" }],
  ["CONFIG_INVALID", { problem: "notAbsoluteUrl", source: "storage:baseUrl", raw: "api.example.test" }],
  ["CONFIG_INVALID", { problem: "notHttp", source: "storage:baseUrl", protocol: "ftp:" }],
  ["CONFIG_INVALID", { problem: "plainHttp", source: "storage:baseUrl", host: "api.example.test" }],
  ["CONFIG_INVALID", { problem: "userInfo", source: "storage:baseUrl" }],
  ["CONFIG_INVALID", { problem: "queryOrFragment", source: "storage:baseUrl" }],
  ["CONFIG_NOT_SECRET", { ...keys, where: "Pulumi.yaml", project: true, inline: true }],
  ["PLUGIN_CANNOT_START", { module: "@pulumi/pulumi/cmd/dynamic-provider", dir: "/" }],
  ["VERSION_MISMATCH", { wanted: "0.4.0", running: "0.5.0" }],
  ["UNAUTHORIZED", { status: 401, apiMessage: echo, withScheme: true, source: "storage:accessToken" }],
  ["ENDPOINT_NOT_FOUND", { status: 404, url, source: "storage:baseUrl" }],
  ["NAME_TAKEN", { userName: "app-prod", apiMessage: echo }],
  ["REJECTED", { status: 400, apiMessage: echo }],
  ["REDIRECT_REFUSED", { status: 302, location: `https://elsewhere.test/?t=${token}`, source: "storage:baseUrl" }],
  ["UNREACHABLE", { problem: "hostNotFound", ...reach }, { cause }],
  ["UNREACHABLE", { problem: "tls", ...reach }, { cause }],
  ["UNREACHABLE", { problem: "noConnection", ...reach, attempts: 4 }],
  ["RETRIES_EXHAUSTED", { attempts: 3, last: `HTTP 429: ${echo}` }],
  ["OUTCOME_UNKNOWN", { problem: "noVerdict", userName: "app-prod", service, detail: echo }, { cause }],
  ["OUTCOME_UNKNOWN", { problem: "noId", userName: "app-prod", service, problems: ["Id is missing"] }],
  ["OUTCOME_UNKNOWN", failure],
  ["RESPONSE_UNUSABLE", { problem: "created", userId: 7, userName: "app-prod", service, problems: ["p"] }],
  ["RESPONSE_UNUSABLE", failure],
  ["IMPORT_UNSUPPORTED", { name: "app" }],
  ["CONFIG_WRITE_FAILED", { key: "storage:accessToken", exit: "255", said: "error: no stack named 'dev' found" }],
  ["USAGE", { what: "unknown command or arguments", usage: "usage: pulumi-storage-user pending" }],
  ["PENDING_INPUT_UNREADABLE", { problem: "notADeployment", why: "the input is not a JSON object" }],
  ["PENDING_INPUT_UNREADABLE", { problem: "cannotRead", input: "standard input", errno: "EISDIR" }],
  ["PENDING_INPUT_UNREADABLE", { problem: "notJson", input: "export.json", bytes: 12 }],
];
/** The one detail that chooses the text rather than appears in it: the variant. */
const unshown = new Set(["problem"]);
const variantOf = ([code, details]: ErrorArgs) => ("problem" in details ? `${code}.${details.problem}` : code);

describe.each(cases.map((args) => [variantOf(args), args] as const))("%s", (_name, args) => {
  const err = new StorageUserError(...args);
  test("code, template, cause, details; no secret", () => {
    expect([err.code, err.name, err.cause]).toEqual([args[0], "StorageUserError", args[2]?.cause]);
    // One line (progress rows cut at a line break): `[CODE] what happened: what to do`.
    expect(err.message).toMatch(new RegExp(`^\\[${args[0]}\\] \\S[^\\n]*: \\S[^\\n]*$`));
    expect(Object.isFrozen(err.details) && Object.keys(err.details)).toEqual(Object.keys(args[1]));
    expect(err.message + JSON.stringify(err.details)).not.toContain(token);
    if (err.message.includes("Authorization")) expect(err.message).toContain("[redacted]");
  });
  // What makes the message: a template that drops or garbles a detail (an id, a key, a URL, a count) fails here.
  test("the message shows every detail it was given, redacted", () => {
    const values = (value: unknown): unknown[] =>
      typeof value === "object" && value !== null ? Object.values(value).flatMap(values) : [value];
    const shown = Object.entries(args[1])
      .filter(([name]) => !unshown.has(name))
      .flatMap(([, value]) => values(value))
      .filter((value) => typeof value !== "boolean" && value !== "");
    expect(shown.filter((value) => !err.message.includes(redact(String(value))))).toStrictEqual([]);
  });
});

test("every message of the catalogue is in the table, one error type, and every code has a row in docs/errors.md", () => {
  const variants = Object.entries(messages.errors).flatMap(([code, entry]) =>
    typeof entry === "function" ? [code] : Object.keys(entry).map((v) => `${code}.${v}`),
  );
  expect(new Set(cases.map(variantOf))).toEqual(new Set(variants));
  const classes = Object.entries(messagesModule).filter(
    ([, v]) => typeof v === "function" && v.prototype instanceof Error,
  );
  expect(classes.map(([k]) => k)).toEqual(["StorageUserError"]);
  const doc = fs.readFileSync(path.join(repoRoot, "docs", "errors.md"), "utf8");
  const rows = (from: string, to?: string) =>
    [...doc.slice(doc.indexOf(from), to ? doc.indexOf(to) : undefined).matchAll(/^\| `([A-Z_]+)` \|/gm)]
      .map((m) => m[1])
      .sort();
  expect(rows("## Errors", "## Warnings")).toEqual([...errorCodes].sort());
  expect(rows("## Warnings")).toEqual([...warningCodes].sort());
});

// A recorded failure's message, as update repeats it: create.test.ts ("update of a recorded resource").
test("the recorded-failure messages name what may exist and the way out", () => {
  const urn = "urn:pulumi:dev::infra::pulumi-nodejs:dynamic/storage:StorageUser::app";
  const created = { problem: "created", userId: 7, userName: "app-prod", service, problems: [], urn } as const;
  const unusable = errorText("RESPONSE_UNUSABLE", created);
  expect(unusable.what).toContain("storage user 7 ('app-prod') was created on https://api.storage.example.com/ but");
  expect(unusable.todo).toContain(
    `delete user 7 on the service, then run \`pulumi up --replace '${urn}'\` to create a new user, or \`pulumi state delete '${urn}'\``,
  );
  expect(
    errorText("OUTCOME_UNKNOWN", { problem: "noVerdict", userName: "app-prod", service, detail: "HTTP 502" }).what,
  ).toBe(
    "the create request for 'app-prod' was sent but no verdict came back (HTTP 502): a storage user 'app-prod' may have been created on https://api.storage.example.com/; the stack records it as unconfirmed so the next up does not create a second one",
  );
});

test("redaction: registered tokens and given secrets longer than 3 characters", () => {
  expect(redact(`a ${token} b`)).toBe("a [redacted] b");
  expect(redact("one three", ["three"])).toBe("one [redacted]");
  expect(redact("abc", ["abc"])).toBe("abc");
});

test("NAME_TAKEN names the likely causes in order, and never says to delete the live user of a replace", () => {
  const message = new StorageUserError("NAME_TAKEN", { userName: "app-prod", apiMessage: "" }).message;
  const at = ["this stack let that user go earlier", "another stack or person", "a force-stopped up"].map((c) =>
    message.indexOf(c),
  );
  expect(at.every((i, k) => i > (at[k - 1] ?? 0))).toBe(true);
  expect(message).toContain("`pulumi stack export | npx pulumi-storage-user pending`");
  expect(message).toContain("the existing user is the live one: keep it");
});
