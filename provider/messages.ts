// Every message the package shows, one catalogue keyed by code: errors (`[CODE] what happened: what to do`), warnings
// (`[CODE] …`), argument reasons. The code lists and types derive from it; test/unit/messages.test.ts holds docs/errors.md to it.
import { isUnconfirmed } from "./identity";
import type { ForgottenUser } from "./model";

type Text = string[]; // [what happened, what to do]

/** A token is set with no value on the command line: the CLI prompts for it or reads standard input. */
const setSecret = (key: string, path = false) =>
  `\`pulumi config set${path ? " --path" : ""} --secret ${key}\` and enter the token at its prompt (or pipe it in)`;
const ROTATE =
  "if it held a token in plain text, rotate the token: the stack's config file and the backend's update history hold it";
const SET_CONNECTIONS = `set entries with \`pulumi config set --path storage:connections.<name>.baseUrl https://…\` and ${setSecret("storage:connections.<name>.accessToken", true)}`;
const said = (apiMessage: string, open = ": ", close = "") => (apiMessage ? `${open}${apiMessage}${close}` : "");
const url = (what: string, todo: string) => (d: { source: string }) => [`${d.source} ${what}`, todo];
type Keys = { key: string; env: string; path: boolean };
type Reach = { url: string; detail: string; source: string };
export type Failure = { property: string; reason: string };

/** The resource's URN quoted for a shell, or a placeholder and where to find it. */
const urnArg = (urn: unknown) =>
  typeof urn === "string" && urn.startsWith("urn:pulumi:") ? `'${urn}'` : "<urn> (from `pulumi stack --show-urns`)";
const replaceHint = (urn: unknown) =>
  `run \`pulumi up --replace ${urnArg(urn)}\` to create a new user, or \`pulumi state delete ${urnArg(urn)}\` to forget this one ` +
  "(not while the user it was to replace is still in the stack under the same URN: use the replace)";

type Sent = { userName: string; service: string; urn?: unknown };
const mayExist = (d: Sent, what: string) => [
  `${what}: a storage user '${d.userName}' may have been created on ${d.service}; the stack records it as unconfirmed so the next up does not create a second one`,
  `check on ${d.service} whether user '${d.userName}' exists and, if it does, delete it there (this API cannot hand its credentials over again), then ${replaceHint(d.urn)}`,
];
const recorded = (d: { what: string; todo: string; at: string }) => [
  `${d.what} (recorded ${d.at}; not created again on its own)`,
  d.todo,
];

const unsupported = {
  deleteBeforeReplace: [
    "with no delete call the old user stays on the service under its name while the engine marks it deleted, so the replacement's create may meet a refused name on every later up",
    "remove it; a replace creates the new user first and leaves the old one on the service with a warning",
  ],
  'replaceOnChanges: ["*"]': [
    "it also replaces a user whose create ended without a verdict (OUTCOME_UNKNOWN), sending that create again: two users may exist",
    'list the properties instead, e.g. replaceOnChanges: ["connection"]',
  ],
} as const;

/** What a user is called in warnings; `service` is absent in state written by 0.1.x until a refresh. */
type UserRef = { id: string; userName: string; service?: string; urn?: unknown };
const where = (u: UserRef) => u.service ?? "its service (not recorded: created by 0.1.x; `pulumi refresh` records it)";
type Moved = UserRef & { service: string; connection: string; now: string };
const sameOrNew = (u: Moved) =>
  `If ${u.now} is the same service under a new address, run \`STORAGE_SERVICE_NEW_ADDRESS=${u.now} pulumi up\` to record it; to create a new user there instead, \`pulumi up --replace ${urnArg(u.urn)}\` (user ${u.id} then stays on ${u.service})`;

/** One ledger entry as messages name it. */
export const describeForgotten = (
  f: Pick<ForgottenUser, "id" | "userName" | "resourceName"> & Partial<ForgottenUser>,
) =>
  `${f.id} '${f.userName}' on ${f.service ?? "its service (not recorded)"} (resource '${f.resourceName}'${f.why ? `, ${f.why} ${f.at}` : ""}${f.onService === "may exist" ? ", may exist" : ""})`;

const errors = {
  INVALID_INPUT: {
    noArguments: (d: { name: string }) => [
      `StorageUser '${d.name}' has arguments that are not an object`,
      'pass { userName: "app-prod" }, or leave them out for a generated name',
    ],
    invalidArguments: (d: { name: string; failures: readonly Failure[]; accepted?: readonly string[] }) => [
      `StorageUser '${d.name}' has invalid arguments: ${d.failures.map((f) => `${f.property} ${f.reason}`).join("; ")}`,
      d.accepted ? `the arguments are ${d.accepted.join(", ")}` : "fix the argument(s) named, then run again",
    ],
    notADuration: (d: { text: string }) => [
      `customTimeouts.create ${JSON.stringify(d.text)} is not a duration`,
      'write it like "90s", "5m" or "1h30m"',
    ],
    unsupportedOption: (d: { name: string; option: keyof typeof unsupported }) => [
      `StorageUser '${d.name}' sets the resource option ${d.option}, which cannot work here: ${unsupported[d.option][0]}`,
      unsupported[d.option][1],
    ],
    ledgerWithoutUsers: (d: { name: string }) => [
      `StorageUserLedger '${d.name}' needs users`,
      "pass { users: [user1, user2] } with every StorageUser of the stack",
    ],
  },
  ROTATION_INVALID: {
    notADuration: (d: { name: string; text: string }) => [
      `StorageUser '${d.name}' has rotateAfter ${JSON.stringify(d.text.slice(0, 40))}, which is not a duration`,
      `write whole numbers with units w (weeks), d (days), h (hours) or m (minutes), e.g. rotateAfter: "90d" or "1d12h"`,
    ],
    notPositive: (d: { name: string; text: string }) => [
      `StorageUser '${d.name}' has rotateAfter ${JSON.stringify(d.text.slice(0, 40))}, which is not a positive period`,
      'give a period longer than zero, e.g. rotateAfter: "90d", or leave rotateAfter out to rotate only on replacementTrigger',
    ],
    tooLarge: (d: { name: string; text: string; maxDays: number }) => [
      `StorageUser '${d.name}' has rotateAfter ${JSON.stringify(d.text.slice(0, 40))}, which reaches past the last date a clock can show`,
      `give a period of at most ${d.maxDays}d, e.g. rotateAfter: "365d", or leave rotateAfter out`,
    ],
    givenUserName: (d: { name: string; userName: string }) => [
      `StorageUser '${d.name}' sets both rotateAfter and userName '${d.userName}': each rotation creates the new user while the old one still exists, and the service refuses a name that is taken`,
      "leave userName out so each rotation gets a new generated name, or drop rotateAfter and rotate with replacementTrigger",
    ],
  },
  CONFIG_MISSING: (d: { setting: "address" | "access token"; connection?: string; setElsewhere?: string } & Keys) => [
    d.connection === undefined
      ? `no storage API ${d.setting} is configured`
      : `connection '${d.connection}' has no storage API ${d.setting}`,
    (d.key === ""
      ? `set ${d.env} in the environment of the pulumi command; the plugin reads named connections from the environment only (several services: one explicit provider each)`
      : d.setting === "address"
        ? `run \`pulumi config set${d.path ? " --path" : ""} ${d.key} https://<api-host>\`, or set ${d.env} in the environment of the pulumi command`
        : `run ${setSecret(d.key, d.path)}, or set ${d.env} in the environment of the pulumi command (preview needs no token; create does)`) +
      (d.key.startsWith("storage:") ? " (setting process.env in the program does not reach the provider)" : "") +
      // Two namespaces (docs/decisions.md): the key of the other one, when the user set it.
      (d.setElsewhere
        ? `; you set ${d.setElsewhere}, which only ${d.key.startsWith("storage:") ? "YAML, Go and Python" : "TypeScript"} programs read`
        : ""),
  ],
  CONFIG_INVALID: {
    unknownKeys: (d: { keys: readonly string[]; known: readonly string[]; path?: boolean; suggest?: string }) => [
      `${d.keys.map((k) => JSON.stringify(k.slice(0, 80))).join(", ")} ${d.keys.length === 1 ? "is" : "are"} not a setting of pulumi-storage-user, which reads only ${d.known.slice(0, -1).join(", ")} and ${d.known.at(-1)}${d.suggest ? ` (did you mean ${d.suggest}?)` : ""}`,
      `mind the spelling: remove it with \`pulumi config rm${d.path ? " --path" : ""} <key>\` and set the right key; ${ROTATE}`,
    ],
    notAnObject: (d: { key: string; expected: string }) => [`${d.key} is not ${d.expected}`, SET_CONNECTIONS],
    notAString: (d: { key: string; secret: boolean; path: boolean }) => [
      `${d.key} is not a single value (set with --path ${d.key}.<something>?)`,
      `remove it with \`pulumi config rm${d.path ? " --path" : ""} ${d.key}\` and set it again as one value${d.secret ? ` with ${setSecret(d.key, d.path)}` : ""}; ${ROTATE}`,
    ],
    badConnectionName: (d: { key: string; name: string }) => [
      `${d.key} has an entry named ${JSON.stringify(d.name.slice(0, 64))}`,
      "connection names are lower-case letters, digits and _, starting with a letter (e.g. eu_west): rename it",
    ],
    tokenWhitespace: url(
      "contains whitespace or control characters at its ends or inside",
      "set the token again without line breaks or surrounding spaces",
    ),
    notAbsoluteUrl: (d: { source: string; raw: string }) => [
      `${d.source} is not an absolute URL`,
      `set it to the API root, e.g. https://api.example.com (got ${JSON.stringify(d.raw.slice(0, 100))})`,
    ],
    notHttp: (d: { source: string; protocol: string }) => [`${d.source} uses ${d.protocol}`, "use an https:// URL"],
    plainHttp: (d: { source: string; host: string }) => [
      `${d.source} is plain http:// to ${d.host}, which would send the token and the returned credentials unencrypted`,
      "use https:// (plain http is accepted only for localhost/127.0.0.1/[::1])",
    ],
    userInfo: url(
      "contains user info (user:password@)",
      "remove it; the API token goes in the connection's accessToken (secret config)",
    ),
    queryOrFragment: url(
      "has a query or fragment",
      "set it to the API root without ?... or #...; the provider appends /storage/users",
    ),
  },
  CONFIG_NOT_SECRET: (d: { where: string; project?: boolean; inline?: boolean } & Keys) => [
    `${d.key} is set in plain text in the ${d.project ? "project" : "stack"} configuration (${d.where}); Pulumi would write it unencrypted into the state, its history and backups`,
    `${d.project ? `remove it from the config block of ${d.where} and ` : ""}${
      d.inline
        ? `set it with \`setStorageConfig(stack, { "${d.key}": { value: token, secret: true } }${d.path ? ", { path: true }" : ""})\` (pulumi-storage-user/automation: the token on no command line)`
        : `run ${setSecret(d.key, d.path)}`
    } (or ${d.project ? "" : "remove it and "}set ${d.env} in the environment), and rotate the token if that file, the stack's state or its update history was shared`,
  ],
  VERSION_MISMATCH: (d: { wanted: string; running: string }) => [
    `the program's SDK asks for the storage-user plugin v${d.wanted}, but the plugin in plugins.providers is v${d.running}`,
    "use the SDK and the package of one release (docs/go.md)",
  ],
  UNAUTHORIZED: (d: { status: number; apiMessage: string; withScheme: boolean; source?: string }) => [
    `the storage API refused the access token (HTTP ${d.status}${said(d.apiMessage)})`,
    `${d.withScheme ? "the API takes the bare token (`Authorization: <token>`), not `Bearer …`: set it without the prefix; otherwise " : ""}check the token of the user's connection (${d.source ? `read from ${d.source}` : "its accessToken or environment variable"}); nothing was created`,
  ],
  ENDPOINT_NOT_FOUND: (d: { status: number; url: string; source: string }) => [
    `POST ${d.url} answered HTTP ${d.status}`,
    `${/\/storage\/users\/storage\/users$/.test(d.url) ? "the base URL already ends in /storage/users: drop that from it" : `check ${d.source}: it must be the API root`} (the provider appends /storage/users); nothing was created`,
  ],
  NAME_TAKEN: (d: { userName: string; apiMessage: string }) => [
    `the storage API already has a user named '${d.userName}'${said(d.apiMessage, " (", ")")}`,
    // Never "delete it": on a replace that keeps the name, it is the live user.
    "nothing was created now. Likely causes: this stack let that user go earlier (destroy, removal, replace: that run's warning and a StorageUserLedger name it), " +
      "another stack or person created it, or a force-stopped up did (`pulumi stack export | npx pulumi-storage-user pending` lists those). " +
      "Give this StorageUser another userName, or leave userName out so a unique one is generated (new on every replace); " +
      "a user this stack let go can be deleted once nothing uses it, but if this up replaces a StorageUser of that name, the existing user is the live one: keep it",
  ],
  REJECTED: (d: { status: number; apiMessage: string }) => [
    `the storage API rejected the request with HTTP ${d.status}${said(d.apiMessage)}`,
    "fix the input the API names and run again; nothing was created",
  ],
  REDIRECT_REFUSED: (d: { status: number; location: string; source: string }) => [
    `the storage API answered HTTP ${d.status} redirecting to ${d.location || "(no Location)"}, which is not followed`,
    `set ${d.source} to the API's real address; nothing was created and the token was not sent there`,
  ],
  UNREACHABLE: {
    hostNotFound: (d: Reach) => [
      `could not reach ${d.url} (${d.detail})`,
      `check the host name in ${d.source}; nothing was created`,
    ],
    // The fix before OpenSSL's words, which progress rows may cut.
    tls: (d: Reach) => [
      `could not reach ${d.url}: the TLS handshake failed`,
      `${
        /wrong version number|packet length too long|http request/i.test(d.detail)
          ? `the server speaks plain HTTP, not TLS: check the scheme in ${d.source}`
          : `if the API uses a private CA, point NODE_EXTRA_CA_CERTS at its certificate; otherwise check ${d.source}`
      }; nothing was created (${d.detail})`,
    ],
    noConnection: (d: Reach & { attempts: number }) => [
      `could not reach ${d.url} (${d.detail}, after ${d.attempts} attempt(s))`,
      `check that the API is up and ${d.source} is right; nothing was created`,
    ],
  },
  RETRIES_EXHAUSTED: (d: { attempts: number; last: string }) => [
    `the storage API did not accept the create after ${d.attempts} attempt(s), last answer: ${d.last}`,
    "nothing was created; run pulumi up again later, or raise customTimeouts.create on the resource",
  ],
  OUTCOME_UNKNOWN: {
    noVerdict: (d: Sent & { detail: string }) =>
      mayExist(d, `the create request for '${d.userName}' was sent but no verdict came back (${d.detail})`),
    noId: (d: Sent & { problems: readonly string[] }) =>
      mayExist(d, `the API answered success but the body is unusable and names no Id (${d.problems.join("; ")})`),
    recorded,
  },
  RESPONSE_UNUSABLE: {
    created: (d: Sent & { userId: number; problems: readonly string[] }) => [
      `storage user ${d.userId} ('${d.userName}') was created on ${d.service} but the API's answer is unusable (${d.problems.join("; ")}); it is recorded in the stack so it is not created twice`,
      `its credentials cannot be fetched again (the API has no read call): delete user ${d.userId} on the service, then ${replaceHint(d.urn)}`,
    ],
    recorded,
  },
  IMPORT_UNSUPPORTED: (d: { name: string }) => [
    `StorageUser '${d.name}' cannot be imported or read by id: the storage API has no call that returns an existing user's credentials`,
    "let Pulumi create the user, or keep the existing user's credentials in pulumi config --secret",
  ],
  PENDING_INPUT_UNREADABLE: {
    notADeployment: (d: { why: string }) => [
      d.why,
      "pass the output of `pulumi stack export` or stack.exportStack(), or a file backend's checkpoint file (.pulumi/stacks, history, backups)",
    ],
    cannotRead: (d: { input: string; errno: string }) => [
      `cannot read ${d.input} (${d.errno})`,
      "pass an existing file, or pipe `pulumi stack export` in",
    ],
    notJson: (d: { input: string; bytes: number }) => [
      `${d.input} is not JSON (${d.bytes ? `${d.bytes} bytes` : "empty"})`,
      "pass the output of `pulumi stack export`",
    ],
  },
  PLUGIN_CANNOT_START: (d: { module: string; dir: string }) => [
    `the dynamic-provider plugin cannot start: ${d.module} does not resolve from ${d.dir}, the project's main directory, where Pulumi starts it`,
    "set the project's main (an inline program's projectSettings.main) to a directory whose node_modules hold @pulumi/pulumi and pulumi-storage-user, such as the service's own; nothing was created",
  ],
  CONFIG_WRITE_FAILED: (d: { key: string; exit: string; said: string }) => [
    `\`pulumi config set --secret ${d.key}\` failed (exit ${d.exit}): ${d.said}`,
    "check the stack's name and the workspace's pulumiCommand, workDir and envVars; the key was not set",
  ],
  USAGE: (d: { what: string; usage: string }) => [d.what, d.usage],
};

/** A replace the engine decided without asking the provider: only the old inputs are known, not the id. */
type EngineReplace = { userName: string; service?: string; by: "engine" };

const warnings = {
  REPLACE_LEAVES_USER: (u: (UserRef & { now?: string }) | EngineReplace) =>
    "by" in u
      ? `StorageUser '${u.userName}'${u.service ? ` (on ${u.service})` : ""} is to be replaced, its replacementTrigger changed or a resource of its replaceWith replaced: the new user is created first, then this one leaves the stack but stays on the service, which has no delete call: delete user '${u.userName}' there afterwards ([USER_LEFT_STACK] names its id)`
      : isUnconfirmed(u.id)
        ? `StorageUser '${u.userName}' (${u.id}, on ${where(u)}) is to be replaced: its create never confirmed a user, so a user '${u.userName}' may stay on the service: check there and delete it if it exists`
        : `StorageUser '${u.userName}' (id ${u.id}, on ${where(u)}) is to be replaced: the new user is created first${u.now && u.now !== u.service ? ` on ${u.now}` : ""}, then this one leaves the stack but stays on the service, which has no delete call: delete user ${u.id} there afterwards`,
  ROTATION_DUE: (u: UserRef & { age: string; period: string }) =>
    `StorageUser '${u.userName}' (id ${u.id}) is ${u.age} old, past its rotateAfter of ${u.period}: it is replaced by a new user with new credentials`,
  SERVICE_MOVED: (u: Moved) =>
    `StorageUser '${u.userName}' (id ${u.id}) lives on ${u.service}, but ${u.connection} now points at ${u.now}: nothing is created, moved or forgotten. ${sameOrNew(u)}; otherwise point the connection back`,
  CONNECTION_CHANGED: (u: Moved & { from: string }) =>
    `StorageUser '${u.userName}' (id ${u.id}) lives on ${u.service}; its connection changes from ${u.from} to ${u.connection}, which points at ${u.now}: ` +
    `the user is not moved (an update records the name, with no API call) unless the resource sets replaceOnChanges: ["connection"]. ${sameOrNew(u)}`,
  SERVICE_READDRESSED: (u: Moved) =>
    `StorageUser '${u.userName}' (id ${u.id}) is recorded on ${u.now}, where ${u.connection} points, instead of ${u.service}, because STORAGE_SERVICE_NEW_ADDRESS names that address as the same service (an update with no API call)`,
  STATE_UPGRADE: (u: UserRef) =>
    `StorageUser '${u.userName}' (id ${u.id}) was recorded by pulumi-storage-user 0.1.x: the next pulumi up rewrites its state in the 0.2 shape (an update with no API call)`,
  SERVICE_RECORDED: (u: UserRef & { connection: string; now: string }) =>
    `StorageUser '${u.userName}' (id ${u.id}) had no recorded service (created by 0.1.x): recorded as ${u.now}, where ${u.connection} pointed at the last pulumi up`,
  USER_LEFT_STACK: (u: UserRef & { failed: boolean }) =>
    `StorageUser '${u.userName}' (${isUnconfirmed(u.id) ? "" : "id "}${u.id}, on ${where(u)}) left the stack` +
    (!u.failed
      ? ` but still exists on the storage service, which has no delete call: delete user ${u.id} there if it is no longer needed`
      : isUnconfirmed(u.id)
        ? `; its create did not finish cleanly, so a user '${u.userName}' may exist on the storage service: check and delete it there`
        : `; its create answer was unusable, and user ${u.id} still exists on the storage service: delete it there`),
  LEDGER_GREW: (d: { added: ForgottenUser[]; total: number }) =>
    `StorageUserLedger: ${d.added.length} storage user(s) left the stack but not the service, which has no delete call: ${d.added.map(describeForgotten).join("; ")}. ` +
    `${d.total} in the ledger now (\`pulumi stack output forgotten\`): delete them on the service, then list their ids in the ledger's cleanedUp`,
  LEDGER_DELETED: (d: { id: string; forgotten: ForgottenUser[]; tracked: string[] }) =>
    `StorageUserLedger ${d.id} is deleted and its record with it. Forgotten users still on the storage service (${d.forgotten.length}): ${d.forgotten.map(describeForgotten).join("; ") || "none"}. ` +
    `Users it tracked, which stay on the service too if they leave the stack now (${d.tracked.length}): ${d.tracked.join("; ") || "none"}`,
};

// Why an argument is refused: the text after the property's name in a check failure or in INVALID_INPUT.
const reasons = {
  userNameNotString: (v: unknown) =>
    `must be a string, got ${v === null ? "null" : typeof v}: pass userName: "app-prod"`,
  userNameEmpty: () => 'must not be empty: pass the login the storage user should have, e.g. "app-prod"',
  userNameBlank: () => 'must not be whitespace only: pass a login such as "app-prod"',
  userNameSpaces: (trimmed: string) => `must not start or end with whitespace: use ${JSON.stringify(trimmed)}`,
  userNameControl: () => "must not contain control characters or line breaks: remove them",
  userNameLong: (length: number, max: number) =>
    `is ${length} characters long; at most ${max} are accepted: shorten it`,
  notABoolean: (v: unknown) =>
    `must be true or false, got ${JSON.stringify(v)?.slice(0, 40) ?? typeof v}: pass persistPassword: true or leave it out (default false)`,
  notAnArgument: (accepted?: readonly string[]) =>
    `is not a StorageUser argument${accepted ? `: the arguments are ${accepted.join(", ")}` : ""}`,
  connectionNotString: (v: unknown) => `must be a string naming a connection, got ${v === null ? "null" : typeof v}`,
  notAConnectionName: (v: string) =>
    `${JSON.stringify(v.slice(0, 64))} is not a connection name: lower-case letters, digits and _, starting with a letter (e.g. "eu_west")`,
  usersNotAList: () => "must be a list of StorageUsers",
  ledgerEntryIncomplete: (missing: string[]) => `needs non-empty string ${missing.join(", ")}`,
  ledgerNamesShared: (name: string) =>
    `two users share the resource name '${name}': pass { name, id, userName } entries with distinct names`,
  ledgerServiceNotText: () => "must be the base URL of the user's service, as text (a StorageUser's baseUrl output)",
  cleanedUpNotIds: () => "must be a list of user ids",
};

export const messages = { errors, warnings, reasons };

type Errors = typeof messages.errors;
type Warnings = typeof messages.warnings;
/** One of {@link errorCodes}: the `code` of a {@link StorageUserError}. */
export type StorageUserErrorCode = keyof Errors;
/** One of {@link warningCodes}: the code a warning's text starts with (`[USER_LEFT_STACK] …`). */
export type StorageUserWarningCode = keyof Warnings;
/** Every error code, a stable contract (docs/errors.md). */
export const errorCodes = Object.keys(messages.errors) as readonly StorageUserErrorCode[];
/** Every warning code, a stable contract (docs/errors.md). */
export const warningCodes = Object.keys(messages.warnings) as readonly StorageUserWarningCode[];

/** The details of one code: its entry's argument, with `problem` naming the variant where a code has several. */
type DetailsOf<E> = E extends (d: infer D) => Text
  ? D
  : { [K in keyof E]: E[K] extends (d: infer D) => Text ? { problem: K } & D : never }[keyof E];
/** A StorageUserError's constructor arguments: a code, the details its message is made from, and the cause. */
export type ErrorArgs<C extends StorageUserErrorCode = StorageUserErrorCode> = {
  [K in C]: [code: K, details: DetailsOf<Errors[K]>, options?: { cause?: unknown }];
}[C];

const neverShown = new Set<string>();
/** Registers a value no message may show (each access token, as the plugin resolves it). */
export function neverShow(secret: string): void {
  if (secret.length > 3) neverShown.add(secret);
}
/** `text` with every registered secret, and each of `secrets` (longer than 3 characters), replaced by `[redacted]`. */
export function redact(text: string, secrets: readonly (string | undefined)[] = []): string {
  return [...secrets, ...neverShown].reduce<string>(
    (out, s) => (s && s.length > 3 ? out.split(s).join("[redacted]") : out),
    text,
  );
}
const redactAll = (v: unknown): unknown =>
  typeof v === "string" ? redact(v) : Array.isArray(v) ? v.map(redactAll) : v;
const redacted = (details: object) => Object.fromEntries(Object.entries(details).map(([k, v]) => [k, redactAll(v)]));

/** What happened and what to do, from the catalogue, details redacted (a recorded failure keeps them in state). */
export function errorText(...[code, details]: ErrorArgs): { what: string; todo: string } {
  const entry = messages.errors[code] as ((d: unknown) => Text) | Record<string, (d: unknown) => Text>;
  const d = redacted(details) as Record<string, unknown>;
  const [what, todo] = typeof entry === "function" ? entry(d) : entry[d.problem as string](d);
  return { what, todo };
}

/** A warning's details; its text is `[CODE] …`. */
export type WarningArgs<C extends StorageUserWarningCode> = Parameters<(typeof messages.warnings)[C]>[0];
export const warningText = <C extends StorageUserWarningCode>(code: C, details: WarningArgs<C>) =>
  `[${code}] ${(messages.warnings[code] as (d: unknown) => string)(details)}`;

/** Every error the package raises: a stable `code`, the `details` its message was made from (never a secret), the `cause`. */
export class StorageUserError extends Error {
  /** Pulumi's RunError mark (@pulumi/pulumi errors.js): thrown in a program, it prints as its message, without a stack trace. */
  readonly __pulumiRunError = true;
  /** The stable code, also the `[CODE]` the message starts with. */
  readonly code: StorageUserErrorCode;
  /** What the message was made from, e.g. `{ status, url }`; `problem` names the variant of codes that have several. */
  readonly details: Readonly<Record<string, unknown>>;
  /** @hidden The provider makes these: a code, its details, and the underlying error as `cause`. */
  constructor(...args: ErrorArgs) {
    const [code, details, options] = args;
    const { what, todo } = errorText(...args);
    super(`[${code}] ${what}: ${todo}`, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = "StorageUserError";
    this.code = code;
    this.details = Object.freeze(redacted(details));
  }
}
