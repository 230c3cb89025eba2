/**
 * Every failure the provider reports is one of these classes, each with a stable `code`
 * and a message of the form `[CODE] what happened: what to do`. Messages never carry the
 * access token or a credential: text that comes from outside (API error bodies, undici
 * errors) passes through `redact` before it is quoted.
 */
export type StorageUserErrorCode =
  | "INVALID_INPUT"
  | "CONFIG_MISSING"
  | "CONFIG_INVALID"
  | "CONFIG_NOT_SECRET"
  | "UNAUTHORIZED"
  | "ENDPOINT_NOT_FOUND"
  | "NAME_TAKEN"
  | "REJECTED"
  | "REDIRECT_REFUSED"
  | "UNREACHABLE"
  | "RETRIES_EXHAUSTED"
  | "OUTCOME_UNKNOWN"
  | "RESPONSE_UNUSABLE"
  | "IMPORT_UNSUPPORTED";

export class StorageUserError extends Error {
  constructor(
    readonly code: StorageUserErrorCode,
    what: string,
    todo: string,
    cause?: unknown,
  ) {
    super(`[${code}] ${what}: ${todo}`, cause === undefined ? undefined : { cause });
    this.name = new.target.name;
  }
}

/** A userName or persistPassword value that cannot be sent. */
export class InvalidInputError extends StorageUserError {
  constructor(what: string, todo: string) {
    super("INVALID_INPUT", what, todo);
  }
}

/** `storage:baseUrl` / `storage:accessToken` (or their environment fallbacks) are absent. */
export class ConfigMissingError extends StorageUserError {
  constructor(what: string, todo: string) {
    super("CONFIG_MISSING", what, todo);
  }
}

/** A configured value is present but unusable (malformed URL, plain http to a remote host...). */
export class ConfigInvalidError extends StorageUserError {
  constructor(what: string, todo: string) {
    super("CONFIG_INVALID", what, todo);
  }
}

/**
 * A token sits in plain (non-secret) stack configuration: in Pulumi.<stack>.yaml, which infra
 * repos commit, and in state as the default provider's inputs, unencrypted. Names the key and
 * the fix; never the value.
 */
export class ConfigNotSecretError extends StorageUserError {
  constructor(key: string, where: string, path: boolean) {
    super(
      "CONFIG_NOT_SECRET",
      `${key} is set in plain text in the stack configuration (${where}); Pulumi would write it unencrypted into the state, its history and backups`,
      `run \`pulumi config set${path ? " --path" : ""} --secret ${key} <token>\` (or remove it and set ${envHint(key)} in the environment), and rotate the token if that file or the stack's state was shared`,
    );
  }
}

function envHint(key: string): string {
  const m = /^storage:connections\.([^.]+)\.accessToken$/.exec(key);
  return m ? `STORAGE_ACCESS_TOKEN_${m[1].toUpperCase()}` : "STORAGE_ACCESS_TOKEN";
}

/** A resource option that cannot work with a create-only API. */
export class UnsupportedOptionError extends StorageUserError {
  constructor(name: string, option: string, why: string, todo: string) {
    super("INVALID_INPUT", `StorageUser '${name}' sets the resource option ${option}, which cannot work here: ${why}`, todo);
  }
}

/** 401/403: the API refused the token. Nothing was created. */
export class UnauthorizedError extends StorageUserError {
  constructor(status: number, detail: string) {
    super(
      "UNAUTHORIZED",
      `the storage API refused the access token (HTTP ${status}${detail ? `: ${detail}` : ""})`,
      "check the token of the user's connection (storage:accessToken, storage:connections.<name>.accessToken, or its environment variable); nothing was created",
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
      `the storage API already has a user named '${userName}'${detail ? ` (${detail})` : ""}`,
      "choose another userName, or delete that user on the service first; nothing was created now, but if an earlier pulumi up was force-stopped (second Ctrl-C, kill) while creating it, that run may have made this user: check its credentials on the service",
    );
  }
}

/** Other 4xx: the API rejected the request; its own message is quoted. */
export class RejectedError extends StorageUserError {
  constructor(status: number, detail: string) {
    super(
      "REJECTED",
      `the storage API rejected the request with HTTP ${status}${detail ? `: ${detail}` : ""}`,
      "fix the input the API names and run again; nothing was created",
    );
  }
}

/** A 3xx that the provider will not follow (other origin, or a method-changing redirect). */
export class RedirectRefusedError extends StorageUserError {
  constructor(status: number, location: string, why: string) {
    super(
      "REDIRECT_REFUSED",
      `the storage API answered HTTP ${status} redirecting to ${location || "(no Location)"}, which is not followed (${why})`,
      "set the connection's base URL (storage:baseUrl or storage:connections.<name>.baseUrl) to the API's real address; nothing was created and the token was not sent there",
    );
  }
}

/** The request never reached the API (refused, DNS, TLS). Nothing was created. */
export class UnreachableError extends StorageUserError {
  constructor(url: string, detail: string, todo: string, cause?: unknown) {
    super("UNREACHABLE", `could not reach ${url} (${detail})`, `${todo}; nothing was created`, cause);
  }
}

/** 429/503/unsent after the last attempt or past the time budget. Nothing was created. */
export class RetriesExhaustedError extends StorageUserError {
  constructor(attempts: number, last: string) {
    super(
      "RETRIES_EXHAUSTED",
      `the storage API did not accept the create after ${attempts} attempt(s), last answer: ${last}`,
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
  readonly reasons: string[];
  constructor(
    code: "OUTCOME_UNKNOWN" | "RESPONSE_UNUSABLE",
    what: string,
    todo: string,
    readonly id: string,
    readonly properties: Record<string, unknown>,
    cause?: unknown,
  ) {
    super(code, what, todo, cause);
    this.reasons = [this.message];
  }
}

export class ImportUnsupportedError extends StorageUserError {
  constructor(name: string) {
    super(
      "IMPORT_UNSUPPORTED",
      `StorageUser '${name}' cannot be imported or read by id: the storage API has no call that returns an existing user's credentials`,
      "let Pulumi create the user (new StorageUser without the import/get), or keep the existing user's credentials in pulumi config --secret",
    );
  }
}

/**
 * Warnings the provider prints (to the CLI, during preview and up). Not errors: nothing fails,
 * but each names the user and what stays where, so nothing is created or forgotten silently.
 */
export interface UserRef {
  id: string;
  userName: string;
  /** Where the user lives (recorded base URL); undefined for state written by 0.1.x. */
  service?: string;
}

const serviceOf = (u: UserRef) => u.service ?? "its service (not recorded: created by 0.1.x; `pulumi refresh` records it)";

/** diff, when a replace is planned: shown by preview, before anything happens. */
export function replaceWarning(u: UserRef, newService: string | undefined): string {
  const target = newService && newService !== u.service ? ` on ${newService}` : "";
  if (u.id.startsWith("unconfirmed-")) {
    return (
      `warning: StorageUser '${u.userName}' (${u.id}, on ${serviceOf(u)}) is to be replaced: its create never confirmed a user, so a user '${u.userName}' may stay on the service ` +
      "after the new one is created: check there and delete it if it exists"
    );
  }
  return (
    `warning: StorageUser '${u.userName}' (id ${u.id}, on ${serviceOf(u)}) is to be replaced: the new user is created first${target}, ` +
    `then this one leaves the stack but stays on the service, which has no delete call: delete user ${u.id} there afterwards ` +
    "(a StorageUserLedger lists it until you do)"
  );
}

/** diff, when the user's connection now points at another service than the one it lives on. */
export function serviceMovedWarning(u: UserRef & { service: string }, connection: string, now: string): string {
  return (
    `warning: StorageUser '${u.userName}' (id ${u.id}) lives on ${u.service}, but ${connection} now points at ${now}: ` +
    `nothing is created, moved or forgotten; the user stays recorded on ${u.service}. ` +
    `If ${now} is the same service under a new address, run \`STORAGE_SERVICE_NEW_ADDRESS=${now} pulumi up\` to record it; ` +
    `to create a new user on ${now} instead, run \`pulumi up --replace <urn>\` (user ${u.id} then stays on ${u.service}, named in a warning and the ledger); ` +
    "otherwise point the connection back"
  );
}

/** diff, when the user's connection name changes to one that points at another service. */
export function connectionChangedWarning(u: UserRef & { service: string }, from: string, to: string, now: string): string {
  return (
    `warning: StorageUser '${u.userName}' (id ${u.id}) lives on ${u.service}; its connection changes from ${from} to ${to}, which points at ${now}: ` +
    `the user is not moved (an update records the new connection name, with no API call) and stays on ${u.service}, ` +
    `unless the resource sets replaceOnChanges: ["connection"], which creates a new user on ${now} instead and leaves user ${u.id} on ${u.service}. ` +
    `To create a new user on ${now} once, run \`pulumi up --replace <urn>\`; if ${now} is the same service under a new address, run \`STORAGE_SERVICE_NEW_ADDRESS=${now} pulumi up\` to record it`
  );
}

/** diff, when STORAGE_SERVICE_NEW_ADDRESS says the user's service now answers at its connection's new address. */
export function serviceReaddressedWarning(u: UserRef & { service: string }, connection: string, now: string): string {
  return (
    `warning: StorageUser '${u.userName}' (id ${u.id}) is recorded on ${now}, where ${connection} points, instead of ${u.service}, ` +
    "because STORAGE_SERVICE_NEW_ADDRESS names that address as the same service (an update with no API call)"
  );
}

/** read (pulumi refresh): a user from state written by 0.1.x gets its service recorded. */
export function serviceRecordedWarning(u: UserRef, connection: string, now: string): string {
  return `warning: StorageUser '${u.userName}' (id ${u.id}) had no recorded service (created by 0.1.x): recorded as ${now}, where ${connection} pointed at the last pulumi up`;
}

/** Replaces every occurrence of each secret (longer than 3 chars) by `[redacted]`. */
export function redact(text: string, secrets: readonly (string | undefined)[]): string {
  let out = text;
  for (const s of secrets) {
    if (s && s.length > 3) out = out.split(s).join("[redacted]");
  }
  return out;
}
