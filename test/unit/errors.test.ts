// The one error type, table-driven over every message of the catalogue: its code, the message
// template `[CODE] what happened: what to do`, the cause kept, and no secret in the message or the
// details even when the outside text it quotes (an API error body, an undici error, a Location
// header, a last answer) carries the token. Every code has its message and its row in
// docs/errors.md, and nothing else has.
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, test } from "vitest";
import * as errors from "../../provider/errors";
import {
  ErrorArgs,
  errorCodes,
  errorMessages,
  errorText,
  recordedFailure,
  StorageUserError,
} from "../../provider/errors";
import { neverShow, quote, redact } from "../../provider/redaction";
import { repoRoot } from "../../scripts/toolchain";

const token = "errors-test-token-0123456789";
neverShow(token);
const echo = `bad header Authorization: ${token}`;
const cause = new Error("underlying");
const failure = { problem: "recorded", what: "w", todo: "t", at: "2026-01-01T00:00:00Z" } as const;
const service = "https://api.storage.example.com/";
const url = "https://api.example.test/storage/users";

const cases: ErrorArgs[] = [
  ["INVALID_INPUT", { problem: "noArguments", name: "app" }],
  [
    "INVALID_INPUT",
    {
      problem: "invalidArguments",
      name: "app",
      failures: [{ property: "pasword", reason: "is not a StorageUser argument" }],
      accepted: ["userName"],
    },
  ],
  ["INVALID_INPUT", { problem: "notADuration", text: "5 minutes" }],
  ["INVALID_INPUT", { problem: "unsupportedOption", name: "app", option: "deleteBeforeReplace" }],
  ["INVALID_INPUT", { problem: "unsupportedOption", name: "app", option: 'replaceOnChanges: ["*"]' }],
  ["INVALID_INPUT", { problem: "ledgerWithoutUsers", name: "ledger" }],
  [
    "CONFIG_MISSING",
    {
      setting: "address",
      connection: "eu",
      key: "storage:connections.eu.baseUrl",
      env: "STORAGE_API_URL_EU",
      path: true,
    },
  ],
  ["CONFIG_MISSING", { setting: "access token", key: "storage:accessToken", env: "STORAGE_ACCESS_TOKEN", path: false }],
  [
    "CONFIG_MISSING",
    { setting: "access token", connection: "eu", key: "", env: "STORAGE_ACCESS_TOKEN_EU", path: false },
  ],
  ["CONFIG_INVALID", { problem: "connectionsNotObject", key: "storage:connections" }],
  ["CONFIG_INVALID", { problem: "badConnectionName", key: "storage:connections", name: "EU" }],
  ["CONFIG_INVALID", { problem: "entryNotObject", entry: "storage:connections.eu" }],
  ["CONFIG_INVALID", { problem: "unknownEntryKeys", entry: "storage:connections.eu", keys: ["baseURL"] }],
  ["CONFIG_INVALID", { problem: "settingNotString", key: "storage:accessToken", secret: true }],
  ["CONFIG_INVALID", { problem: "unknownKeys", keys: ["storage:accessTokn"] }],
  ["CONFIG_INVALID", { problem: "unknownProviderKeys", namespace: "storage-user", keys: ["accessTokn"] }],
  ["CONFIG_INVALID", { problem: "entryValueNotString", key: "storage:connections.eu.accessToken", secret: true }],
  ["CONFIG_INVALID", { problem: "tokenWhitespace", source: "STORAGE_ACCESS_TOKEN" }],
  ["CONFIG_INVALID", { problem: "notAbsoluteUrl", source: "storage:baseUrl", raw: "api.example.test" }],
  ["CONFIG_INVALID", { problem: "notHttp", source: "storage:baseUrl", protocol: "ftp:" }],
  ["CONFIG_INVALID", { problem: "plainHttp", source: "storage:baseUrl", host: "api.example.test" }],
  ["CONFIG_INVALID", { problem: "userInfo", source: "storage:baseUrl" }],
  ["CONFIG_INVALID", { problem: "queryOrFragment", source: "storage:baseUrl" }],
  [
    "CONFIG_NOT_SECRET",
    { key: "storage:connections.eu.accessToken", where: "Pulumi.dev.yaml", path: true, env: "STORAGE_ACCESS_TOKEN_EU" },
  ],
  [
    "CONFIG_NOT_SECRET",
    {
      key: "storage:accessToken",
      where: "Pulumi.yaml",
      path: false,
      env: "STORAGE_ACCESS_TOKEN",
      project: true,
      inline: true,
    },
  ],
  ["PLUGIN_CANNOT_START", { dir: "/", missing: ["@pulumi/pulumi", "pulumi-storage-user"], inline: true }],
  ["UNAUTHORIZED", { status: 401, apiMessage: echo, withScheme: true, source: "storage:accessToken" }],
  ["ENDPOINT_NOT_FOUND", { status: 404, url }],
  ["NAME_TAKEN", { userName: "app-prod", apiMessage: echo }],
  ["REJECTED", { status: 400, apiMessage: echo }],
  ["REDIRECT_REFUSED", { status: 302, location: `https://elsewhere.test/?t=${token}`, why: "another origin" }],
  ["UNREACHABLE", { problem: "hostNotFound", url, detail: echo, source: "storage:baseUrl" }, { cause }],
  ["UNREACHABLE", { problem: "tls", url, detail: echo, source: "storage:baseUrl" }, { cause }],
  ["UNREACHABLE", { problem: "noConnection", url, last: echo, attempts: 4, source: "storage:baseUrl" }],
  ["RETRIES_EXHAUSTED", { attempts: 3, last: `HTTP 429: ${echo}` }],
  ["OUTCOME_UNKNOWN", { problem: "noVerdict", userName: "app-prod", service, detail: echo }, { cause }],
  ["OUTCOME_UNKNOWN", { problem: "noId", userName: "app-prod", service, problems: ["Id is missing"] }],
  ["OUTCOME_UNKNOWN", failure],
  [
    "RESPONSE_UNUSABLE",
    { problem: "created", userId: 7, userName: "app-prod", service, problems: ["S3Connection.SecretKey is missing"] },
  ],
  ["RESPONSE_UNUSABLE", failure],
  ["IMPORT_UNSUPPORTED", { name: "app" }],
  ["PENDING_INPUT_UNREADABLE", { problem: "notAnObject" }],
  ["PENDING_INPUT_UNREADABLE", { problem: "unknownShape" }],
  ["PENDING_INPUT_UNREADABLE", { problem: "pendingNotAList" }],
  ["PENDING_INPUT_UNREADABLE", { problem: "nothingGiven" }],
  ["PENDING_INPUT_UNREADABLE", { problem: "cannotRead", input: "standard input", errno: "EISDIR" }],
  ["PENDING_INPUT_UNREADABLE", { problem: "notJson", input: "export.json", bytes: 12, blank: false }],
];

const variantOf = ([code, details]: ErrorArgs) => ("problem" in details ? `${code}.${details.problem}` : code);

describe.each(cases.map((args) => [variantOf(args), args] as const))("%s", (_name, args) => {
  const err = new StorageUserError(...args);
  test("code, details and the message template", () => {
    expect(err.code).toBe(args[0]);
    expect(err.name).toBe("StorageUserError");
    expect(err.message).toMatch(new RegExp(`^\\[${args[0]}\\] \\S[\\s\\S]*: \\S[\\s\\S]*$`));
    expect(Object.isFrozen(err.details)).toBe(true);
    expect(Object.keys(err.details)).toEqual(Object.keys(args[1]));
    const { what, todo } = errorText(...args);
    expect(err.message).toBe(`[${args[0]}] ${what}: ${todo}`);
  });
  test("the cause is kept", () => expect(err.cause).toBe(args[2]?.cause));
  test("no secret in the message or the details", () => {
    expect(err.message).not.toContain(token);
    expect(JSON.stringify(err.details)).not.toContain(token);
    if (err.message.includes("Authorization")) expect(err.message).toContain("[redacted]");
  });
  test("not a recorded failure: the plugin records only an error with an id", () =>
    expect((err as { id?: unknown }).id).toBeUndefined());
});

test("every message of the catalogue is in the table", () => {
  const variants = Object.entries(errorMessages).flatMap(([code, entry]) =>
    typeof entry === "function" ? [code] : Object.keys(entry).map((v) => `${code}.${v}`),
  );
  expect(new Set(cases.map(variantOf))).toEqual(new Set(variants));
});

test("every code has its message and a row in docs/errors.md, and nothing else has", () => {
  expect(Object.keys(errorMessages).sort()).toEqual([...errorCodes].sort());
  const doc = fs.readFileSync(path.join(repoRoot, "docs", "errors.md"), "utf8");
  const table = doc.slice(doc.indexOf("## Errors"), doc.indexOf("## Warnings"));
  const rows = [...table.matchAll(/^\| `([A-Z_]+)` \|/gm)].map((m) => m[1]);
  expect(rows.sort()).toEqual([...errorCodes].sort());
});

test("one error type: errors.ts exports no other error class", () => {
  const classes = Object.entries(errors)
    .filter(([, v]) => typeof v === "function" && v.prototype instanceof Error)
    .map(([k]) => k);
  expect(classes).toEqual(["StorageUserError"]);
});

test("a recorded failure carries what the dynamic-provider plugin records: id, properties, reasons", () => {
  const err = recordedFailure(new StorageUserError("OUTCOME_UNKNOWN", failure), "unconfirmed-1", { userName: "x" });
  expect(err).toBeInstanceOf(StorageUserError);
  expect({ id: err.id, properties: err.properties, reasons: err.reasons }).toEqual({
    id: "unconfirmed-1",
    properties: { userName: "x" },
    reasons: [err.message],
  });
});

test("the recorded-failure messages name what may exist and the way out", () => {
  const unusable = errorText("RESPONSE_UNUSABLE", {
    problem: "created",
    userId: 7,
    userName: "app-prod",
    service,
    problems: ["S3Connection.SecretKey is missing"],
  });
  expect(unusable.what).toContain("storage user 7 ('app-prod') was created on https://api.storage.example.com/ but");
  expect(`${unusable.what}: ${unusable.todo}`).toContain(
    "delete user 7 on the service, then run `pulumi up --replace <urn>` (urn from `pulumi stack --show-urns`)",
  );
  const urn = "urn:pulumi:dev::infra::pulumi-nodejs:dynamic/storage:StorageUser::app";
  expect(
    errorText("RESPONSE_UNUSABLE", { problem: "created", userId: 7, userName: "app-prod", service, problems: [], urn })
      .todo,
  ).toContain(
    `then run \`pulumi up --replace '${urn}'\` to create a new user, or \`pulumi state delete '${urn}'\` to forget this one`,
  );
  const unknown = errorText("OUTCOME_UNKNOWN", {
    problem: "noVerdict",
    userName: "app-prod",
    service,
    detail: "HTTP 502",
  });
  expect(unknown.what).toBe(
    "the create request for 'app-prod' was sent but no verdict came back (HTTP 502): a storage user 'app-prod' may have been created on https://api.storage.example.com/; the stack records it as unconfirmed so the next up does not create a second one",
  );
  expect(
    errorText("OUTCOME_UNKNOWN", { problem: "noId", userName: "app-prod", service, problems: ["Id is missing"] }).what,
  ).toContain("names no Id (Id is missing)");
  expect(new StorageUserError("OUTCOME_UNKNOWN", failure).message).toBe(
    "[OUTCOME_UNKNOWN] w (recorded 2026-01-01T00:00:00Z; Pulumi will not create it again on its own): t",
  );
});

test("redaction: registered tokens and given secrets, before text is cut", () => {
  expect(redact(`a ${token} b`)).toBe("a [redacted] b");
  expect(redact("one three", ["three"])).toBe("one [redacted]"); // given secrets are redacted too
  expect(redact("abc", ["abc"])).toBe("abc"); // 3 characters or fewer: too likely to be ordinary text
  const straddling = `${"x".repeat(290)}${token}`;
  expect(quote(straddling, 300)).not.toContain(token.slice(0, 10));
});

test("NAME_TAKEN names the likely causes, most common first, and never says to delete the live user of a replace", () => {
  const message = new StorageUserError("NAME_TAKEN", { userName: "app-prod", apiMessage: "" }).message;
  const causes = [
    "this stack let that user go earlier (pulumi destroy, the StorageUser removed from the program, or replaced)",
    "another stack or person",
    "a force-stopped pulumi up",
  ];
  const at = causes.map((c) => message.indexOf(c));
  expect(
    at.every((i) => i > 0),
    message,
  ).toBe(true);
  expect([...at].sort((a, b) => a - b)).toEqual(at);
  expect(message).toContain(
    "USER_LEFT_STACK or REPLACE_LEAVES_USER warning and a StorageUserLedger's forgotten list name it",
  );
  expect(message).toContain("`pulumi stack export | npx pulumi-storage-user pending`");
  expect(message).toContain("the existing user is the live one: keep it");
});
