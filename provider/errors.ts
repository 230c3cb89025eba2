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

/** 401/403: the API refused the token. Nothing was created. */
export class UnauthorizedError extends StorageUserError {
  constructor(status: number, detail: string) {
    super(
      "UNAUTHORIZED",
      `the storage API refused the access token (HTTP ${status}${detail ? `: ${detail}` : ""})`,
      "check storage:accessToken (pulumi config set --secret storage:accessToken ...) or STORAGE_ACCESS_TOKEN; nothing was created",
    );
  }
}

/** 404/405: the URL does not lead to the create call. Nothing was created. */
export class EndpointNotFoundError extends StorageUserError {
  constructor(status: number, url: string) {
    super(
      "ENDPOINT_NOT_FOUND",
      `POST ${url} answered HTTP ${status}`,
      "check storage:baseUrl: it must be the API root, the provider appends /storage/users; nothing was created",
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
      "set storage:baseUrl to the API's real address; nothing was created and the token was not sent there",
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

/** Replaces every occurrence of each secret (longer than 3 chars) by `[redacted]`. */
export function redact(text: string, secrets: readonly (string | undefined)[]): string {
  let out = text;
  for (const s of secrets) {
    if (s && s.length > 3) out = out.split(s).join("[redacted]");
  }
  return out;
}
