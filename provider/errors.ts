/**
 * Every error the provider raises: one class per failure kind, each with a stable `code` and a
 * message `[CODE] what happened: what to do`, and the texts of check failures and refusals.
 * Messages never carry the access token or a credential: what they quote passes through
 * redaction.ts. Warnings are in warnings.ts.
 */
import { redact } from "./redaction";
import { urnArg } from "./warnings";

/** Every error code, a stable contract (docs/errors.md): each failure kind keeps its code across releases. */
export const errorCodes = [
  "INVALID_INPUT", "CONFIG_MISSING", "CONFIG_INVALID", "CONFIG_NOT_SECRET", "PLUGIN_CANNOT_START", "UNAUTHORIZED", "ENDPOINT_NOT_FOUND",
  "NAME_TAKEN", "REJECTED", "REDIRECT_REFUSED", "UNREACHABLE", "RETRIES_EXHAUSTED", "OUTCOME_UNKNOWN", "RESPONSE_UNUSABLE", "IMPORT_UNSUPPORTED",
] as const;
/** One of {@link errorCodes}: the `code` of a {@link StorageUserError}. */
export type StorageUserErrorCode = (typeof errorCodes)[number];

/**
 * The base of every error the provider raises: `code` is its stable code, and the message reads
 * `[CODE] what happened: what to do`, with no token or credential in it.
 */
export class StorageUserError extends Error {
  /**
   * The mark of Pulumi's RunError (@pulumi/pulumi errors.js `RunError.isInstance`, read by
   * cmd/run's uncaught-error handler): thrown in a program, the error prints as its message, not
   * as "failed with an unhandled exception" with a stack trace; the message says what to do.
   */
  readonly __pulumiRunError = true;
  /**
   * @param code the error's stable code, also the `[CODE]` its message starts with
   * @param what what happened
   * @param todo what to do about it
   * @param cause the underlying error, kept as the standard `cause`
   */
  constructor(readonly code: StorageUserErrorCode, what: string, todo: string, cause?: unknown) {
    super(`[${code}] ${what}: ${todo}`, cause === undefined ? undefined : { cause });
    this.name = new.target.name;
  }
}

/** A userName or persistPassword value that cannot be sent. */
export class InvalidInputError extends StorageUserError {
  constructor(what: string, todo: string) { super("INVALID_INPUT", what, todo); }
}

/** `storage:baseUrl` / `storage:accessToken` (or their environment fallbacks) are absent. */
export class ConfigMissingError extends StorageUserError {
  constructor(what: string, todo: string) { super("CONFIG_MISSING", what, todo); }
}

/** A configured value is present but unusable (malformed URL, plain http to a remote host...). */
export class ConfigInvalidError extends StorageUserError {
  constructor(what: string, todo: string) { super("CONFIG_INVALID", what, todo); }
}

/**
 * A token sits in plain (non-secret) stack configuration: in Pulumi.<stack>.yaml, which infra
 * repos commit, and in state as the default provider's inputs, unencrypted. Names the key and
 * the fix; never the value.
 */
export class ConfigNotSecretError extends StorageUserError {
  /**
   * `project`: found in the project file's `config:` block (`where`), which has no secret form.
   * `inline`: an Automation API program, whose config is set with `stack.setConfig`.
   */
  constructor(key: string, where: string, path: boolean, env: string, project = false, inline = false) {
    const set = inline
      ? `set it with \`stack.setConfig("${key}", { value: token, secret: true }${path ? ", true" : ""})\``
      : `run ${setSecretCommand(key, path)}`;
    super(
      "CONFIG_NOT_SECRET",
      `${key} is set in plain text in the ${project ? "project" : "stack"} configuration (${where}); Pulumi would write it unencrypted into the state, its history and backups`,
      `${project ? `remove it from the config block of ${where} and ` : ""}${set} (or ${project ? "" : "remove it and "}set ${env} in the environment), and rotate the token if that file or the stack's state was shared`,
    );
  }
}

/** A resource option that cannot work with a create-only API. */
export class UnsupportedOptionError extends StorageUserError {
  constructor(name: string, option: string, why: string, todo: string) {
    super("INVALID_INPUT", `StorageUser '${name}' sets the resource option ${option}, which cannot work here: ${why}`, todo);
  }
}

/** 401/403: the API refused the token. Nothing was created. */
export class UnauthorizedError extends StorageUserError {
  /** `withScheme`: the configured token starts with an auth scheme ("Bearer …"), which the API does not use. */
  constructor(status: number, detail: string, withScheme = false, source?: string) {
    super(
      "UNAUTHORIZED",
      `the storage API refused the access token (HTTP ${status}${detail ? `: ${redact(detail)}` : ""})`,
      (withScheme ? "the configured token starts with a scheme such as `Bearer `, but the API takes the bare token (sent as `Authorization: <token>`): set it without the prefix; otherwise " : "") +
        `check the token of the user's connection (${source ? `read from ${source}` : "storage:accessToken, storage:connections.<name>.accessToken, or its environment variable"}); nothing was created`,
    );
  }
}

/** 404/405: the URL does not lead to the create call. Nothing was created. */
export class EndpointNotFoundError extends StorageUserError {
  constructor(status: number, url: string) {
    super(
      "ENDPOINT_NOT_FOUND",
      `POST ${url} answered HTTP ${status}`,
      "check the base URL of the user's connection (storage:baseUrl or storage:connections.<name>.baseUrl): it must be the API root, the provider appends /storage/users; nothing was created",
    );
  }
}

/** 409: the service already has a user of that name. */
export class NameTakenError extends StorageUserError {
  constructor(userName: string, detail: string) {
    super(
      "NAME_TAKEN",
      `the storage API already has a user named '${userName}'${detail ? ` (${redact(detail)})` : ""}`,
      // Causes in the order they happen: this stack's own destroy, removal or replace is the
      // usual one. Never "delete it" unconditionally: on a replace that keeps the userName, the
      // named user is the live one whose credentials applications still use.
      "nothing was created now. Likely causes, most common first: " +
        "(1) this stack let that user go earlier (pulumi destroy, the StorageUser removed from the program, or replaced) and it stays on the service: " +
        "that run's USER_LEFT_STACK or REPLACE_LEAVES_USER warning and a StorageUserLedger's forgotten list name it; " +
        "(2) another stack or person created it; " +
        "(3) a force-stopped pulumi up (second Ctrl-C, kill) created it and no stack records it (`pulumi stack export | npx pulumi-storage-user pending` lists such users). " +
        "Give this StorageUser another userName, or leave userName out so a unique one is generated " +
        "(resource name plus a random suffix, new on every replace: the way to rotate credentials with replacementTrigger or pulumi up --replace); " +
        "a user this stack let go can be deleted on the service once nothing uses it, but if this up replaces a StorageUser of that userName, the existing user is the live one: keep it",
    );
  }
}

/** Other 4xx: the API rejected the request; its own message is quoted. */
export class RejectedError extends StorageUserError {
  constructor(status: number, detail: string) {
    super(
      "REJECTED",
      `the storage API rejected the request with HTTP ${status}${detail ? `: ${redact(detail)}` : ""}`,
      "fix the input the API names and run again; nothing was created",
    );
  }
}

/** A 3xx that the provider will not follow (other origin, or a method-changing redirect). */
export class RedirectRefusedError extends StorageUserError {
  constructor(status: number, location: string, why: string) {
    super(
      "REDIRECT_REFUSED",
      `the storage API answered HTTP ${status} redirecting to ${redact(location) || "(no Location)"}, which is not followed (${why})`,
      "set the connection's base URL (storage:baseUrl or storage:connections.<name>.baseUrl) to the API's real address; nothing was created and the token was not sent there",
    );
  }
}

/** The request never reached the API (refused, DNS, TLS). Nothing was created. */
export class UnreachableError extends StorageUserError {
  constructor(url: string, detail: string, todo: string, cause?: unknown) {
    super("UNREACHABLE", `could not reach ${url} (${redact(detail)})`, `${todo}; nothing was created`, cause);
  }
}

/** 429/503/unsent after the last attempt or past the time budget. Nothing was created. */
export class RetriesExhaustedError extends StorageUserError {
  constructor(attempts: number, last: string) {
    super(
      "RETRIES_EXHAUSTED",
      `the storage API did not accept the create after ${attempts} attempt(s), last answer: ${redact(last)}`,
      "nothing was created; run pulumi up again later, or raise customTimeouts.create on the resource",
    );
  }
}

/**
 * Errors that the dynamic-provider plugin turns into ErrorResourceInitFailed: the engine
 * records the resource with `properties` under `id`, so a user that may exist is never
 * forgotten by the stack. `properties` must contain the inputs and `__provider`.
 */
export class RecordedFailureError extends StorageUserError {
  /** The plugin's `reasons` of the partial failure: the message, once. */
  readonly reasons: string[];
  /**
   * @param id the id the resource is recorded under: the user's Id, or `unconfirmed-…`
   * @param properties the state recorded under `id`: the inputs and `__provider`, no credentials
   */
  constructor(code: FailureRecord["code"], what: string, todo: string, readonly id: string, readonly properties: Record<string, unknown>, cause?: unknown) {
    super(code, what, todo, cause);
    this.reasons = [this.message];
  }
}

/**
 * The dynamic-provider plugin would start where it cannot load: Pulumi starts it in the
 * program's directory, and it loads @pulumi/pulumi and this package from the node_modules
 * there (pulumi/pulumi#5578, #5455). Refused before anything is registered.
 */
export class PluginCannotStartError extends StorageUserError {
  constructor(dir: string, missing: string[], inline: boolean) {
    super(
      "PLUGIN_CANNOT_START",
      `Pulumi will start the dynamic-provider plugin of StorageUser in ${dir}, where ${missing.join(" and ")} cannot be loaded (the plugin resolves them from its working directory); nothing was registered`,
      inline
        ? "give the inline program the directory whose node_modules hold them as its project's main: LocalWorkspace.createOrSelectStack({ stackName, projectName, program }, { projectSettings: { name: projectName, runtime: \"nodejs\", main: <that directory> } }) (the default main is the process's working directory), or start the service from that directory"
        : `install them in ${dir} (npm install pulumi-storage-user @pulumi/pulumi), or point the project's main at the directory that has them`,
    );
  }
}

/** `import`, `id` or `StorageUser.get`: the API cannot return an existing user's credentials. */
export class ImportUnsupportedError extends StorageUserError {
  constructor(name: string) {
    super(
      "IMPORT_UNSUPPORTED",
      `StorageUser '${name}' cannot be imported or read by id: the storage API has no call that returns an existing user's credentials`,
      "let Pulumi create the user (new StorageUser without the import/get), or keep the existing user's credentials in pulumi config --secret",
    );
  }
}

/** What a create that may have made a user records in state (see plugin/user-provider.ts). */
export interface FailureRecord {
  code: "OUTCOME_UNKNOWN" | "RESPONSE_UNUSABLE";
  what: string;
  todo: string;
  at: string;
}

function replaceHint(urn: unknown): string {
  const { arg, from } = urnArg(urn);
  return (
    `run \`pulumi up --replace ${arg}\`${from} to create a new user, or \`pulumi state delete ${arg}\` to forget this one ` +
    "(not while the user it was to replace is still in the stack under the same URN: the CLI cannot tell the two apart, so use the replace)"
  );
}

/** A 2xx whose body is unusable but names the user's Id. */
export function responseUnusable(id: number, userName: string, service: string, problems: string[], urn?: unknown): Omit<FailureRecord, "at"> {
  return {
    code: "RESPONSE_UNUSABLE",
    what: `storage user ${id} ('${userName}') was created on ${service} but the API's answer is unusable (${problems.join("; ")}); it is recorded in the stack so it is not created twice`,
    todo: `its credentials cannot be fetched again (the API has no read call): delete user ${id} on the service, then ${replaceHint(urn)}`,
  };
}

/** Sent, and no verdict: a 2xx without a readable Id (`problems`), or no usable answer at all (`detail`). */
export function outcomeUnknown(userName: string, service: string, why: { problems: string[] } | { detail: string }, urn?: unknown): Omit<FailureRecord, "at"> {
  const what =
    "problems" in why
      ? `the API answered success but the body is unusable and names no Id (${why.problems.join("; ")})`
      : `the create request for '${userName}' was sent but no verdict came back (${why.detail})`;
  return {
    code: "OUTCOME_UNKNOWN",
    what: `${what}: a storage user '${userName}' may have been created on ${service}; the stack records it as unconfirmed so the next up does not create a second one`,
    todo: `check on ${service} whether user '${userName}' exists and, if it does, delete it there (this API cannot hand its credentials over again), then ${replaceHint(urn)}`,
  };
}

/** Every later up of a recorded failure repeats it, with when it was recorded. */
export function repeatedFailure(id: string, failure: FailureRecord, properties: Record<string, unknown>): RecordedFailureError {
  return new RecordedFailureError(failure.code, `${failure.what} (recorded ${failure.at}; Pulumi will not create it again on its own)`, failure.todo, id, properties);
}

/** Why an argument is refused: a check failure's reason, or part of the constructor's INVALID_INPUT (after the property's name). */
export const reasons = {
  userNameNotString: (v: unknown) => `must be a string, got ${v === null ? "null" : typeof v}: pass userName: "app-prod"`,
  userNameEmpty: `must not be empty: pass the login the storage user should have, e.g. "app-prod"`,
  userNameBlank: 'must not be whitespace only: pass a login such as "app-prod"',
  userNameSpaces: (trimmed: string) => `must not start or end with whitespace: use ${JSON.stringify(trimmed)}`,
  userNameControl: "must not contain control characters or line breaks: remove them",
  userNameLong: (length: number, max: number) => `is ${length} characters long; at most ${max} are accepted: shorten it`,
  notABoolean: (v: unknown, byDefault: boolean) =>
    `must be true or false, got ${JSON.stringify(v)?.slice(0, 40) ?? typeof v}: pass persistPassword: true or leave it out (default ${byDefault})`,
  notAnArgument: (accepted?: readonly string[]) => `is not a StorageUser argument${accepted ? `: the arguments are ${accepted.join(", ")}` : ""}`,
  connectionNotString: (key: string, v: unknown) => `must be a string naming an entry of ${key}, got ${v === null ? "null" : typeof v}`,
  notAConnectionName: (v: string) => `${JSON.stringify(v.slice(0, 64))} is not a connection name: lower-case letters, digits and _, starting with a letter (e.g. "eu_west")`,
  usersNotAList: "must be a list of StorageUsers",
  ledgerEntryIncomplete: (missing: string[]) => `needs non-empty string ${missing.join(", ")}`,
  ledgerNamesShared: (name: string) => `two users share the resource name '${name}': pass { name, id, userName } entries with distinct names`,
  ledgerServiceNotText: "must be the base URL of the user's service, as text (a StorageUser's baseUrl output)",
  cleanedUpNotIds: "must be a list of user ids",
};

/** The errors the program side throws before anything is registered. */
export const refusals = {
  noArguments: (name: string) => new InvalidInputError(`StorageUser '${name}' has arguments that are not an object`, 'pass { userName: "app-prod" }, or leave them out for a generated name'),
  invalidArguments: (name: string, failures: { property: string; reason: string }[], accepted?: readonly string[]) =>
    new InvalidInputError(
      `StorageUser '${name}' has invalid arguments: ${failures.map((f) => `${f.property} ${f.reason}`).join("; ")}`,
      accepted ? `the arguments are ${accepted.join(", ")}` : "fix the argument(s) named, then run again",
    ),
  notADuration: (text: string) => new InvalidInputError(`customTimeouts.create ${JSON.stringify(text)} is not a duration`, 'write it like "90s", "5m" or "1h30m"'),
  deleteBeforeReplace: (name: string) =>
    new UnsupportedOptionError(
      name,
      "deleteBeforeReplace",
      "the API has no delete call, so the old user stays on the service under the same userName while the engine marks it deleted; the replacement's create then meets a service that may refuse the name (409), and every later up repeats that failed create, even after reverting",
      "remove deleteBeforeReplace; a replace always creates the new user first and then leaves the old one on the service with a warning (change userName too if the service wants unique names)",
    ),
  replaceOnAnyChange: (name: string) =>
    new UnsupportedOptionError(
      name,
      'replaceOnChanges: ["*"]',
      "it also makes the engine replace a user whose create ended without a verdict (OUTCOME_UNKNOWN), which sends that create again on the next up and can leave two users on the service",
      'list the properties instead, e.g. replaceOnChanges: ["connection"]; for a recorded failure decide yourself with `pulumi up --replace <urn>`',
    ),
  ledgerWithoutUsers: (name: string) => new InvalidInputError(`StorageUserLedger '${name}' needs users`, "pass { users: [user1, user2] } with every StorageUser of the stack"),
};

/**
 * How to store a token, said the same way in every message: with no value on the command line,
 * the CLI reads it from its prompt (not echoed) or from standard input, so it stays out of shell
 * history and process lists, and a token that begins with "-" is not taken for a flag.
 */
function setSecretCommand(key: string, path: boolean): string {
  return `\`pulumi config set${path ? " --path" : ""} --secret ${key}\` and enter the token at its prompt (or pipe it in)`;
}

const ROTATE_IF_PLAIN = "if it held a token in plain text, rotate the token, since the stack's config file and the backend's update history hold it";

const SET_CONNECTIONS = `set entries with \`pulumi config set --path storage:connections.<name>.baseUrl https://…\` and ${setSecretCommand("storage:connections.<name>.accessToken", true)}`;

/** Configuration that is absent or unusable; `key`/`source` name where it was read, never its secret value. */
export const configErrors = {
  connectionsNotObject: (key: string) => new ConfigInvalidError(`${key} is not an object of named connections`, SET_CONNECTIONS),
  badConnectionName: (key: string, name: string) =>
    new ConfigInvalidError(
      `${key} has an entry named ${JSON.stringify(name.slice(0, 64))}`,
      "connection names are lower-case letters, digits and _, starting with a letter (e.g. eu_west): rename it",
    ),
  entryNotObject: (entry: string) => new ConfigInvalidError(`${entry} is not an object with baseUrl and accessToken`, SET_CONNECTIONS),
  unknownEntryKeys: (entry: string, keys: string[]) =>
    new ConfigInvalidError(
      `${entry} has ${keys.map((k) => JSON.stringify(k.slice(0, 40))).join(", ")}, which is not a connection setting`,
      `a connection has only baseUrl and accessToken (mind the spelling): remove it with \`pulumi config rm --path ${entry}.${keys[0].slice(0, 40)}\` and set the right key; ${ROTATE_IF_PLAIN}`,
    ),
  settingNotString: (key: string, secret: boolean) =>
    new ConfigInvalidError(
      `${key} is an object, not a string (set with --path ${key}.<something>?)`,
      `remove it with \`pulumi config rm ${key}\` and set it again as one value${secret ? ` with ${setSecretCommand(key, false)}` : ""}; ${ROTATE_IF_PLAIN}`,
    ),
  unknownKeys: (keys: string[]) =>
    new ConfigInvalidError(
      `${keys.map((k) => JSON.stringify(k.slice(0, 60))).join(", ")} ${keys.length === 1 ? "is" : "are"} not a setting of pulumi-storage-user, which reads only storage:baseUrl, storage:accessToken and storage:connections`,
      `mind the spelling: remove it with \`pulumi config rm <key>\` and set the right key (a token with ${setSecretCommand("storage:accessToken", false)}); ${ROTATE_IF_PLAIN}`,
    ),
  entryValueNotString: (key: string, secret: boolean) =>
    new ConfigInvalidError(`${key} is not a string`, secret ? `set it with ${setSecretCommand(key, true)}` : `set it with \`pulumi config set --path ${key} …\``),
  /** No base URL (`what`: "address") or no token (`what`: "access token") for a connection. */
  missing: (what: "address" | "access token", connection: string | undefined, key: string, env: string, path: boolean) =>
    new ConfigMissingError(
      connection === undefined ? `no storage API ${what} is configured` : `connection '${connection}' has no storage API ${what}`,
      // key "": a named connection of the package's own plugin, read from the environment only (docs/yaml.md).
      key === ""
        ? `set ${env} in the environment of the pulumi command${what === "address" ? "" : " (preview needs no token; create does)"}; the package's plugin reads named connections from the environment only: for several services in stack config, use one explicit provider each (docs/yaml.md)`
        : what === "address"
        ? `run \`pulumi config set${path ? " --path" : ""} ${key} https://<api-host>\`, or set ${env} in the environment of the pulumi command (setting process.env in the program does not reach the provider)`
        : `run ${setSecretCommand(key, path)}, or set ${env} in the environment of the pulumi command (preview needs no token; create does)`,
    ),
  tokenWhitespace: (source: string) =>
    new ConfigInvalidError(`${source} contains whitespace or control characters at its ends or inside`, "set the token again without line breaks or surrounding spaces"),
  notAbsoluteUrl: (source: string, raw: string) =>
    new ConfigInvalidError(`${source} is not an absolute URL`, `set it to the API root, e.g. https://api.example.com (got ${JSON.stringify(raw.slice(0, 100))})`),
  notHttp: (source: string, protocol: string) => new ConfigInvalidError(`${source} uses ${protocol}`, "use an https:// URL"),
  plainHttp: (source: string, host: string) =>
    new ConfigInvalidError(
      `${source} is plain http:// to ${host}, which would send the token and the returned credentials unencrypted`,
      "use https:// (plain http is accepted only for localhost/127.0.0.1/[::1])",
    ),
  userInfo: (source: string) =>
    new ConfigInvalidError(`${source} contains user info (user:password@)`, "remove it from the URL; the API token goes in the connection's accessToken (secret config)"),
  queryOrFragment: (source: string) =>
    new ConfigInvalidError(`${source} has a query or fragment`, "set it to the API root without ?... or #...; the provider appends /storage/users"),
};
