/**
 * Every error the provider raises is one type, StorageUserError: a stable `code`, the `details`
 * its message is made from, and the message `[CODE] what happened: what to do` that the one
 * catalogue below, keyed by code, writes. Messages and details never carry the access token or
 * a credential: their text passes through redaction.ts. Warnings are in warnings.ts.
 */
import { redact } from "./redaction";
import { urnArg } from "./warnings";

/** Every error code, a stable contract (docs/errors.md): each failure kind keeps its code across releases. */
export const errorCodes = [
  "INVALID_INPUT",
  "CONFIG_MISSING",
  "CONFIG_INVALID",
  "CONFIG_NOT_SECRET",
  "PLUGIN_CANNOT_START",
  "UNAUTHORIZED",
  "ENDPOINT_NOT_FOUND",
  "NAME_TAKEN",
  "REJECTED",
  "REDIRECT_REFUSED",
  "UNREACHABLE",
  "RETRIES_EXHAUSTED",
  "OUTCOME_UNKNOWN",
  "RESPONSE_UNUSABLE",
  "IMPORT_UNSUPPORTED",
  "PENDING_INPUT_UNREADABLE",
] as const;
/** One of {@link errorCodes}: the `code` of a {@link StorageUserError}. */
export type StorageUserErrorCode = (typeof errorCodes)[number];

type Text = { what: string; todo: string };

/**
 * How to store a token, said the same way in every message: with no value on the command line,
 * the CLI reads it from its prompt (not echoed) or from standard input, so it stays out of shell
 * history and process lists, and a token that begins with "-" is not taken for a flag.
 */
function setSecretCommand(key: string, path: boolean): string {
  return `\`pulumi config set${path ? " --path" : ""} --secret ${key}\` and enter the token at its prompt (or pipe it in)`;
}

const ROTATE_IF_PLAIN =
  "if it held a token in plain text, rotate the token, since the stack's config file and the backend's update history hold it";
const SET_CONNECTIONS = `set entries with \`pulumi config set --path storage:connections.<name>.baseUrl https://…\` and ${setSecretCommand("storage:connections.<name>.accessToken", true)}`;
const quoted = (keys: readonly string[], max: number) => keys.map((k) => JSON.stringify(k.slice(0, max))).join(", ");
const invalidConfig = (what: string, todo: string): Text => ({ what, todo });
const apiSaid = (apiMessage: string, open: string, close = "") => (apiMessage ? `${open}${apiMessage}${close}` : "");

function replaceHint(urn: unknown): string {
  const { arg, from } = urnArg(urn);
  return (
    `run \`pulumi up --replace ${arg}\`${from} to create a new user, or \`pulumi state delete ${arg}\` to forget this one ` +
    "(not while the user it was to replace is still in the stack under the same URN: the CLI cannot tell the two apart, so use the replace)"
  );
}

/** What a create that may have made a user records in state (see plugin/user-provider.ts). */
export interface FailureRecord {
  code: "OUTCOME_UNKNOWN" | "RESPONSE_UNUSABLE";
  what: string;
  todo: string;
  at: string;
}

/** Every later up of a recorded failure repeats it, with when it was recorded. */
const repeated = (d: Omit<FailureRecord, "code">): Text => ({
  what: `${d.what} (recorded ${d.at}; Pulumi will not create it again on its own)`,
  todo: d.todo,
});

const unsupportedOptions = {
  deleteBeforeReplace: {
    why: "the API has no delete call, so the old user stays on the service under the same userName while the engine marks it deleted; the replacement's create then meets a service that may refuse the name (409), and every later up repeats that failed create, even after reverting",
    todo: "remove deleteBeforeReplace; a replace always creates the new user first and then leaves the old one on the service with a warning (change userName too if the service wants unique names)",
  },
  'replaceOnChanges: ["*"]': {
    why: "it also makes the engine replace a user whose create ended without a verdict (OUTCOME_UNKNOWN), which sends that create again on the next up and can leave two users on the service",
    todo: 'list the properties instead, e.g. replaceOnChanges: ["connection"]; for a recorded failure decide yourself with `pulumi up --replace <urn>`',
  },
};

const PASS_DEPLOYMENT =
  "pass the output of `pulumi stack export`, of the Automation API's stack.exportStack(), or a checkpoint file of a file backend (.pulumi/stacks, .pulumi/history, .pulumi/backups)";

/**
 * The message of every error, by code: a function of the details, or, where a code has several
 * messages, one function per variant, chosen by the details' `problem`.
 */
export const errorMessages = {
  INVALID_INPUT: {
    noArguments: (d: { name: string }) => ({
      what: `StorageUser '${d.name}' has arguments that are not an object`,
      todo: 'pass { userName: "app-prod" }, or leave them out for a generated name',
    }),
    invalidArguments: (d: {
      name: string;
      failures: readonly { property: string; reason: string }[];
      accepted?: readonly string[];
    }) => ({
      what: `StorageUser '${d.name}' has invalid arguments: ${d.failures.map((f) => `${f.property} ${f.reason}`).join("; ")}`,
      todo: d.accepted ? `the arguments are ${d.accepted.join(", ")}` : "fix the argument(s) named, then run again",
    }),
    notADuration: (d: { text: string }) => ({
      what: `customTimeouts.create ${JSON.stringify(d.text)} is not a duration`,
      todo: 'write it like "90s", "5m" or "1h30m"',
    }),
    // A resource option is input too: refused as INVALID_INPUT (docs/decisions.md).
    unsupportedOption: (d: { name: string; option: keyof typeof unsupportedOptions }) => ({
      what: `StorageUser '${d.name}' sets the resource option ${d.option}, which cannot work here: ${unsupportedOptions[d.option].why}`,
      todo: unsupportedOptions[d.option].todo,
    }),
    ledgerWithoutUsers: (d: { name: string }) => ({
      what: `StorageUserLedger '${d.name}' needs users`,
      todo: "pass { users: [user1, user2] } with every StorageUser of the stack",
    }),
  },
  /** No base URL (`setting`: "address") or no token (`setting`: "access token") for a connection. */
  CONFIG_MISSING: (d: {
    setting: "address" | "access token";
    connection?: string;
    key: string;
    env: string;
    path: boolean;
  }) => ({
    what:
      d.connection === undefined
        ? `no storage API ${d.setting} is configured`
        : `connection '${d.connection}' has no storage API ${d.setting}`,
    // key "": a named connection of the package's own plugin, read from the environment only (docs/yaml.md).
    // The process.env hint is for TypeScript programs (key `storage:…`), whose plugin is another process.
    todo:
      d.key === ""
        ? `set ${d.env} in the environment of the pulumi command${d.setting === "address" ? "" : " (preview needs no token; create does)"}; the package's plugin reads named connections from the environment only: for several services in stack config, use one explicit provider each (docs/yaml.md)`
        : d.setting === "address"
          ? `run \`pulumi config set${d.path ? " --path" : ""} ${d.key} https://<api-host>\`, or set ${d.env} in the environment of the pulumi command${d.key.startsWith("storage:") ? " (setting process.env in the program does not reach the provider)" : ""}`
          : `run ${setSecretCommand(d.key, d.path)}, or set ${d.env} in the environment of the pulumi command (preview needs no token; create does)`,
  }),
  /** `key`, `entry`, `source`: where the value was read, never the secret value itself. */
  CONFIG_INVALID: {
    connectionsNotObject: (d: { key: string }) =>
      invalidConfig(`${d.key} is not an object of named connections`, SET_CONNECTIONS),
    badConnectionName: (d: { key: string; name: string }) =>
      invalidConfig(
        `${d.key} has an entry named ${JSON.stringify(d.name.slice(0, 64))}`,
        "connection names are lower-case letters, digits and _, starting with a letter (e.g. eu_west): rename it",
      ),
    entryNotObject: (d: { entry: string }) =>
      invalidConfig(`${d.entry} is not an object with baseUrl and accessToken`, SET_CONNECTIONS),
    unknownEntryKeys: (d: { entry: string; keys: readonly string[] }) =>
      invalidConfig(
        `${d.entry} has ${quoted(d.keys, 40)}, which is not a connection setting`,
        `a connection has only baseUrl and accessToken (mind the spelling): remove it with \`pulumi config rm --path ${d.entry}.${d.keys[0].slice(0, 40)}\` and set the right key; ${ROTATE_IF_PLAIN}`,
      ),
    settingNotString: (d: { key: string; secret: boolean }) =>
      invalidConfig(
        `${d.key} is an object, not a string (set with --path ${d.key}.<something>?)`,
        `remove it with \`pulumi config rm ${d.key}\` and set it again as one value${d.secret ? ` with ${setSecretCommand(d.key, false)}` : ""}; ${ROTATE_IF_PLAIN}`,
      ),
    unknownKeys: (d: { keys: readonly string[] }) =>
      invalidConfig(
        `${quoted(d.keys, 60)} ${d.keys.length === 1 ? "is" : "are"} not a setting of pulumi-storage-user, which reads only storage:baseUrl, storage:accessToken and storage:connections`,
        `mind the spelling: remove it with \`pulumi config rm <key>\` and set the right key (a token with ${setSecretCommand("storage:accessToken", false)}); ${ROTATE_IF_PLAIN}`,
      ),
    /** The package's provider plugin (provider/yaml/): its settings are `<namespace>:baseUrl` and `<namespace>:accessToken`. */
    unknownProviderKeys: (d: { namespace: string; keys: readonly string[] }) =>
      invalidConfig(
        `${quoted(
          d.keys.map((k) => `${d.namespace}:${k.slice(0, 60)}`),
          Infinity,
        )} ${d.keys.length === 1 ? "is" : "are"} not a setting of the storage-user provider, which reads only ${d.namespace}:baseUrl and ${d.namespace}:accessToken`,
        `mind the spelling: remove it with \`pulumi config rm <key>\` (or drop the provider argument) and set the right key; a token with ${setSecretCommand(`${d.namespace}:accessToken`, false)}; ${ROTATE_IF_PLAIN}`,
      ),
    entryValueNotString: (d: { key: string; secret: boolean }) =>
      invalidConfig(
        `${d.key} is not a string`,
        d.secret
          ? `set it with ${setSecretCommand(d.key, true)}`
          : `set it with \`pulumi config set --path ${d.key} …\``,
      ),
    tokenWhitespace: (d: { source: string }) =>
      invalidConfig(
        `${d.source} contains whitespace or control characters at its ends or inside`,
        "set the token again without line breaks or surrounding spaces",
      ),
    notAbsoluteUrl: (d: { source: string; raw: string }) =>
      invalidConfig(
        `${d.source} is not an absolute URL`,
        `set it to the API root, e.g. https://api.example.com (got ${JSON.stringify(d.raw.slice(0, 100))})`,
      ),
    notHttp: (d: { source: string; protocol: string }) =>
      invalidConfig(`${d.source} uses ${d.protocol}`, "use an https:// URL"),
    plainHttp: (d: { source: string; host: string }) =>
      invalidConfig(
        `${d.source} is plain http:// to ${d.host}, which would send the token and the returned credentials unencrypted`,
        "use https:// (plain http is accepted only for localhost/127.0.0.1/[::1])",
      ),
    userInfo: (d: { source: string }) =>
      invalidConfig(
        `${d.source} contains user info (user:password@)`,
        "remove it from the URL; the API token goes in the connection's accessToken (secret config)",
      ),
    queryOrFragment: (d: { source: string }) =>
      invalidConfig(
        `${d.source} has a query or fragment`,
        "set it to the API root without ?... or #...; the provider appends /storage/users",
      ),
  },
  /**
   * A token sits in plain (non-secret) configuration: in Pulumi.<stack>.yaml, which infra repos
   * commit, and in state as the default provider's inputs, unencrypted. Names the key and the
   * fix; never the value. `project`: found in the project file's `config:` block (`where`),
   * which has no secret form. `inline`: an Automation API program, whose config is set with
   * `stack.setConfig`.
   */
  CONFIG_NOT_SECRET: (d: {
    key: string;
    where: string;
    path: boolean;
    env: string;
    project?: boolean;
    inline?: boolean;
  }) => ({
    what: `${d.key} is set in plain text in the ${d.project ? "project" : "stack"} configuration (${d.where}); Pulumi would write it unencrypted into the state, its history and backups`,
    todo: `${d.project ? `remove it from the config block of ${d.where} and ` : ""}${
      d.inline
        ? `set it with \`stack.setConfig("${d.key}", { value: token, secret: true }${d.path ? ", true" : ""})\``
        : `run ${setSecretCommand(d.key, d.path)}`
    } (or ${d.project ? "" : "remove it and "}set ${d.env} in the environment), and rotate the token if that file or the stack's state was shared`,
  }),
  /**
   * The dynamic-provider plugin would start where it cannot load: Pulumi starts it in the
   * program's directory, and it loads @pulumi/pulumi and this package from the node_modules
   * there (pulumi/pulumi#5578, #5455). Refused before anything is registered.
   */
  PLUGIN_CANNOT_START: (d: { dir: string; missing: readonly string[]; inline: boolean }) => ({
    what: `Pulumi will start the dynamic-provider plugin of StorageUser in ${d.dir}, where ${d.missing.join(" and ")} cannot be loaded (the plugin resolves them from its working directory); nothing was registered`,
    todo: d.inline
      ? "give the inline program the directory whose node_modules hold them as its project's main: LocalWorkspace.createOrSelectStack({ stackName, projectName, program }, { projectSettings: { name: projectName, runtime: \"nodejs\", main: <that directory> } }) (the default main is the process's working directory), or start the service from that directory"
      : `install them in ${d.dir} (npm install pulumi-storage-user @pulumi/pulumi), or point the project's main at the directory that has them`,
  }),
  /** 401/403. `withScheme`: the configured token starts with an auth scheme ("Bearer …"), which the API does not use. */
  UNAUTHORIZED: (d: { status: number; apiMessage: string; withScheme: boolean; source?: string }) => ({
    what: `the storage API refused the access token (HTTP ${d.status}${apiSaid(d.apiMessage, ": ")})`,
    todo:
      (d.withScheme
        ? "the configured token starts with a scheme such as `Bearer `, but the API takes the bare token (sent as `Authorization: <token>`): set it without the prefix; otherwise "
        : "") +
      `check the token of the user's connection (${d.source ? `read from ${d.source}` : "storage:accessToken, storage:connections.<name>.accessToken, or its environment variable"}); nothing was created`,
  }),
  /** 404/405: the URL does not lead to the create call. */
  ENDPOINT_NOT_FOUND: (d: { status: number; url: string }) => ({
    what: `POST ${d.url} answered HTTP ${d.status}`,
    todo: "check the base URL of the user's connection (storage:baseUrl or storage:connections.<name>.baseUrl): it must be the API root, the provider appends /storage/users; nothing was created",
  }),
  /** 409: the service already has a user of that name. */
  NAME_TAKEN: (d: { userName: string; apiMessage: string }) => ({
    what: `the storage API already has a user named '${d.userName}'${apiSaid(d.apiMessage, " (", ")")}`,
    // Causes in the order they happen: this stack's own destroy, removal or replace is the
    // usual one. Never "delete it" unconditionally: on a replace that keeps the userName, the
    // named user is the live one whose credentials applications still use.
    todo:
      "nothing was created now. Likely causes, most common first: " +
      "(1) this stack let that user go earlier (pulumi destroy, the StorageUser removed from the program, or replaced) and it stays on the service: " +
      "that run's USER_LEFT_STACK or REPLACE_LEAVES_USER warning and a StorageUserLedger's forgotten list name it; " +
      "(2) another stack or person created it; " +
      "(3) a force-stopped pulumi up (second Ctrl-C, kill) created it and no stack records it (`pulumi stack export | npx pulumi-storage-user pending` lists such users). " +
      "Give this StorageUser another userName, or leave userName out so a unique one is generated " +
      "(resource name plus a random suffix, new on every replace: the way to rotate credentials with replacementTrigger or pulumi up --replace); " +
      "a user this stack let go can be deleted on the service once nothing uses it, but if this up replaces a StorageUser of that userName, the existing user is the live one: keep it",
  }),
  /** Other 4xx: the API's own message is quoted. */
  REJECTED: (d: { status: number; apiMessage: string }) => ({
    what: `the storage API rejected the request with HTTP ${d.status}${apiSaid(d.apiMessage, ": ")}`,
    todo: "fix the input the API names and run again; nothing was created",
  }),
  /** A 3xx that the provider will not follow (other origin, a method-changing redirect, too many hops). */
  REDIRECT_REFUSED: (d: { status: number; location: string; why: string }) => ({
    what: `the storage API answered HTTP ${d.status} redirecting to ${d.location || "(no Location)"}, which is not followed (${d.why})`,
    todo: "set the connection's base URL (storage:baseUrl or storage:connections.<name>.baseUrl) to the API's real address; nothing was created and the token was not sent there",
  }),
  /** The request never reached the API. `source`: where the base URL was read. */
  UNREACHABLE: {
    hostNotFound: (d: { url: string; detail: string; source: string }) => ({
      what: `could not reach ${d.url} (${d.detail})`,
      todo: `check the host name in ${d.source}; nothing was created`,
    }),
    tls: (d: { url: string; detail: string; source: string }) => ({
      what: `could not reach ${d.url} (TLS handshake failed: ${d.detail})`,
      todo: `if the API uses a private CA, point NODE_EXTRA_CA_CERTS at its certificate; otherwise check ${d.source}; nothing was created`,
    }),
    noConnection: (d: { url: string; last: string; attempts: number; source: string }) => ({
      what: `could not reach ${d.url} (${d.last}, after ${d.attempts} attempt(s))`,
      todo: `check that the API is up and ${d.source} is right; nothing was created`,
    }),
  },
  /** 429/503 after the last attempt or past the time budget. */
  RETRIES_EXHAUSTED: (d: { attempts: number; last: string }) => ({
    what: `the storage API did not accept the create after ${d.attempts} attempt(s), last answer: ${d.last}`,
    todo: "nothing was created; run pulumi up again later, or raise customTimeouts.create on the resource",
  }),
  /** Sent, and no verdict: a 2xx without a readable Id (`noId`), or no usable answer at all (`noVerdict`); `recorded`: a later up. */
  OUTCOME_UNKNOWN: {
    noVerdict: (d: { userName: string; service: string; detail: string; urn?: unknown }) =>
      mayExist(d, `the create request for '${d.userName}' was sent but no verdict came back (${d.detail})`),
    noId: (d: { userName: string; service: string; problems: readonly string[]; urn?: unknown }) =>
      mayExist(d, `the API answered success but the body is unusable and names no Id (${d.problems.join("; ")})`),
    recorded: repeated,
  },
  /** A 2xx whose body is unusable but names the user's Id; `recorded`: a later up. */
  RESPONSE_UNUSABLE: {
    created: (d: {
      userId: number;
      userName: string;
      service: string;
      problems: readonly string[];
      urn?: unknown;
    }) => ({
      what: `storage user ${d.userId} ('${d.userName}') was created on ${d.service} but the API's answer is unusable (${d.problems.join("; ")}); it is recorded in the stack so it is not created twice`,
      todo: `its credentials cannot be fetched again (the API has no read call): delete user ${d.userId} on the service, then ${replaceHint(d.urn)}`,
    }),
    recorded: repeated,
  },
  /** `import`, `id` or `StorageUser.get`: the API cannot return an existing user's credentials. */
  IMPORT_UNSUPPORTED: (d: { name: string }) => ({
    what: `StorageUser '${d.name}' cannot be imported or read by id: the storage API has no call that returns an existing user's credentials`,
    todo: "let Pulumi create the user (new StorageUser without the import/get), or keep the existing user's credentials in pulumi config --secret",
  }),
  /** The `pending` command's or pendingStorageUsers' input is no deployment. `input`: a file name, or "standard input". */
  PENDING_INPUT_UNREADABLE: {
    notAnObject: () => ({ what: "the input is not a JSON object", todo: PASS_DEPLOYMENT }),
    unknownShape: () => ({
      what: "the input has neither `deployment`, `checkpoint` nor `resources`/`pending_operations`",
      todo: PASS_DEPLOYMENT,
    }),
    pendingNotAList: () => ({ what: "`pending_operations` is not a list", todo: PASS_DEPLOYMENT }),
    nothingGiven: () => ({ what: "no deployment was given", todo: PASS_DEPLOYMENT }),
    cannotRead: (d: { input: string; errno: string }) => ({
      what: `cannot read ${d.input} (${d.errno})`,
      todo: "pass an existing file, or pipe `pulumi stack export` in",
    }),
    notJson: (d: { input: string; bytes: number; blank: boolean }) => ({
      what: `${d.input} is not JSON (${d.blank ? "empty" : `${d.bytes} bytes`})`,
      todo: "pass the output of `pulumi stack export`",
    }),
  },
} satisfies Record<StorageUserErrorCode, ((d: never) => Text) | Record<string, (d: never) => Text>>;

function mayExist(d: { userName: string; service: string; urn?: unknown }, what: string): Text {
  return {
    what: `${what}: a storage user '${d.userName}' may have been created on ${d.service}; the stack records it as unconfirmed so the next up does not create a second one`,
    todo: `check on ${d.service} whether user '${d.userName}' exists and, if it does, delete it there (this API cannot hand its credentials over again), then ${replaceHint(d.urn)}`,
  };
}

type Catalogue = typeof errorMessages;
/** The details of one code: its entry's argument, with `problem` naming the variant where the code has several. */
type DetailsOf<E> = E extends (d: infer D) => Text
  ? D
  : { [K in keyof E]: E[K] extends (d: infer D) => Text ? { problem: K } & D : never }[keyof E];
/** A StorageUserError's constructor arguments: a code, the details its message is made from, and the cause. */
export type ErrorArgs<C extends StorageUserErrorCode = StorageUserErrorCode> = {
  [K in C]: [code: K, details: DetailsOf<Catalogue[K]>, options?: { cause?: unknown }];
}[C];

/** Text is redacted before it is quoted or kept: outside text (an API's error body, an undici error) can echo the token. */
function redacted(details: object): Record<string, unknown> {
  const clean = (v: unknown): unknown => (typeof v === "string" ? redact(v) : Array.isArray(v) ? v.map(clean) : v);
  return Object.fromEntries(Object.entries(details).map(([k, v]) => [k, clean(v)]));
}

/** What happened and what to do, from the catalogue; `details` as given (redacted by the caller). */
function textOf(code: StorageUserErrorCode, details: Record<string, unknown>): Text {
  const entry = errorMessages[code] as ((d: unknown) => Text) | Record<string, (d: unknown) => Text>;
  return typeof entry === "function" ? entry(details) : entry[details.problem as string](details);
}

/** What happened and what to do, the two halves of the message (a recorded failure keeps them in state). */
export function errorText(...[code, details]: ErrorArgs): Text {
  return textOf(code, redacted(details));
}

/**
 * Every error the provider raises: `code` is its stable code, `details` what its message was made
 * from (never a secret value), and the message reads `[CODE] what happened: what to do`.
 */
export class StorageUserError extends Error {
  /**
   * The mark of Pulumi's RunError (@pulumi/pulumi errors.js `RunError.isInstance`, read by
   * cmd/run's uncaught-error handler): thrown in a program, the error prints as its message, not
   * as "failed with an unhandled exception" with a stack trace; the message says what to do.
   */
  readonly __pulumiRunError = true;
  /** The error's stable code, also the `[CODE]` its message starts with. */
  readonly code: StorageUserErrorCode;
  /** What the message was made from, e.g. `{ status, url }`, `{ key }`, `{ userName, service }`; `problem` names the variant of codes that have several. */
  readonly details: Readonly<Record<string, unknown>>;
  /** @hidden Programs receive these errors; the provider makes them, with a code, its details, and the underlying error as the standard `cause`. */
  constructor(...[code, details, options]: ErrorArgs) {
    const kept = redacted(details);
    const { what, todo } = textOf(code, kept);
    super(`[${code}] ${what}: ${todo}`, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = "StorageUserError";
    this.code = code;
    this.details = Object.freeze(kept);
  }
}

/** An error the dynamic-provider plugin turns into ErrorResourceInitFailed (see {@link recordedFailure}). */
export type RecordedFailure = StorageUserError & { id: string; properties: Record<string, unknown>; reasons: string[] };

/**
 * `error` for Pulumi's partial-failure path: @pulumi/pulumi's cmd/dynamic-provider
 * (grpcResponseFromError) turns an error with an `id` into ErrorResourceInitFailed, and the
 * engine records the resource with `properties` under `id` and the `reasons`, so a user that may
 * exist is never forgotten by the stack. `id`: the user's Id, or `unconfirmed-…`; `properties`:
 * the inputs and `__provider`, no credentials.
 */
export function recordedFailure(
  error: StorageUserError,
  id: string,
  properties: Record<string, unknown>,
): RecordedFailure {
  return Object.assign(error, { id, properties, reasons: [error.message] });
}

/** Why an argument is refused: text after a property's name in a check failure or in INVALID_INPUT's `invalidArguments`, not an error of its own. */
export const argumentReasons = {
  userNameNotString: (v: unknown) =>
    `must be a string, got ${v === null ? "null" : typeof v}: pass userName: "app-prod"`,
  userNameEmpty: `must not be empty: pass the login the storage user should have, e.g. "app-prod"`,
  userNameBlank: 'must not be whitespace only: pass a login such as "app-prod"',
  userNameSpaces: (trimmed: string) => `must not start or end with whitespace: use ${JSON.stringify(trimmed)}`,
  userNameControl: "must not contain control characters or line breaks: remove them",
  userNameLong: (length: number, max: number) =>
    `is ${length} characters long; at most ${max} are accepted: shorten it`,
  notABoolean: (v: unknown, byDefault: boolean) =>
    `must be true or false, got ${JSON.stringify(v)?.slice(0, 40) ?? typeof v}: pass persistPassword: true or leave it out (default ${byDefault})`,
  notAnArgument: (accepted?: readonly string[]) =>
    `is not a StorageUser argument${accepted ? `: the arguments are ${accepted.join(", ")}` : ""}`,
  connectionNotString: (key: string, v: unknown) =>
    `must be a string naming an entry of ${key}, got ${v === null ? "null" : typeof v}`,
  notAConnectionName: (v: string) =>
    `${JSON.stringify(v.slice(0, 64))} is not a connection name: lower-case letters, digits and _, starting with a letter (e.g. "eu_west")`,
  usersNotAList: "must be a list of StorageUsers",
  ledgerEntryIncomplete: (missing: string[]) => `needs non-empty string ${missing.join(", ")}`,
  ledgerNamesShared: (name: string) =>
    `two users share the resource name '${name}': pass { name, id, userName } entries with distinct names`,
  ledgerServiceNotText: "must be the base URL of the user's service, as text (a StorageUser's baseUrl output)",
  cleanedUpNotIds: "must be a list of user ids",
};
