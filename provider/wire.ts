/**
 * The storage API's one call as it is on the wire: the request (`POST {baseUrl}/storage/users`
 * with `UserName` and `PersistPassword`), its answer checked field by field into the provider's
 * types, and the outcome a create can have. What state records of it is in state.ts.
 */
import { defaults } from "./defaults";
import { quote } from "./redaction";

/** Resolved inputs as the provider sees them in check/create. */
export interface UserInputs {
  userName: string;
  persistPassword: boolean;
  /** Name of an entry of `storage:connections`; absent: `storage:baseUrl` / `storage:accessToken`. */
  connection?: string;
  /** From the resource option customTimeouts.create; not a user-facing argument. */
  __createTimeoutMs?: number;
  /** The resource's URN (program/storage-user.ts), kept in the outputs for delete's warning. */
  __urn?: string;
}

/** The inputs with every default filled in (persistPassword: docs/decisions.md). */
export function withDefaults<T extends object>(inputs: T): T & { persistPassword: unknown } {
  return {
    ...inputs,
    persistPassword: (inputs as { persistPassword?: unknown }).persistPassword ?? defaults.persistPassword,
  };
}

/** The create request: `{baseUrl}/storage/users` (a path prefix of the base URL kept), the token bare as the spec shows, the body. */
export function createRequest(
  baseUrl: URL,
  accessToken: string,
  user: Pick<UserInputs, "userName" | "persistPassword">,
) {
  const url = new URL(baseUrl.href);
  url.pathname = `${url.pathname.replace(/\/+$/, "")}/storage/users`;
  return {
    url,
    headers: {
      "content-type": "application/json",
      authorization: accessToken,
      accept: "application/json",
      "user-agent": "pulumi-storage-user",
    },
    body: JSON.stringify({ UserName: user.userName, PersistPassword: user.persistPassword ? 1 : 0 }),
  };
}

/** One task of the service's answer (`Tasks`), as the `tasks` output holds it. */
export interface Task {
  /** The task's `Id`; `creationTaskId` is that of the `StorageUserCreate` task. */
  id: number;
  /** `ProgressPercent`, as the service reported it at creation (never refreshed: the API has no read call). */
  progressPercent: number;
  /** `Type`, e.g. `StorageUserCreate`. */
  type: string;
  /** `State`, e.g. `New`. */
  state: string;
  /** `StartDate`, as the service wrote it (the spec shows `YYYY-MM-DDThh:mm:ss.fff`, no zone). */
  startDate: string;
}

// The three connection types are aliases of object types, not interfaces, so they stay
// assignable to index-signature types such as Record<string, string>.
/** The `swift` output (secret), from the answer's `SwiftApiConnection`. */
export type SwiftConnection = {
  /** `Endpoint`: where clients authenticate (`OS_AUTH_URL` in `env`). */
  endpoint: string;
  /** `TenantId`. */
  tenantId: string;
  /** `AccessKey`: the login. */
  accessKey: string;
  /** `Password`. */
  password: string;
};

/** The `s3` output (secret), from the answer's `S3Connection`. */
export type S3Connection = {
  /** `Endpoint`. */
  endpoint: string;
  /** `AccessKey`. */
  accessKey: string;
  /** `SecretKey`. */
  secretKey: string;
};

/** The `ftp` output (secret), from the answer's `FtpConnection`. */
export type FtpConnection = {
  /** `HostName`. */
  hostName: string;
  /** `Login`. */
  login: string;
  /** `Password`. */
  password: string;
};

/** The answer's three connection objects: the API's member, and its fields' API names under the provider's names. */
// `satisfies` ties these to the types above both ways: a field missing here, or one here
// that the interface lacks, fails to compile, so the parser and the public types cannot disagree.
const CONNECTIONS = {
  swift: [
    "SwiftApiConnection",
    { endpoint: "Endpoint", tenantId: "TenantId", accessKey: "AccessKey", password: "Password" },
  ],
  s3: ["S3Connection", { endpoint: "Endpoint", accessKey: "AccessKey", secretKey: "SecretKey" }],
  ftp: ["FtpConnection", { hostName: "HostName", login: "Login", password: "Password" }],
} as const satisfies {
  swift: readonly [string, Readonly<Record<keyof SwiftConnection, string>>];
  s3: readonly [string, Readonly<Record<keyof S3Connection, string>>];
  ftp: readonly [string, Readonly<Record<keyof FtpConnection, string>>];
};

/** Everything secret the API returned for one user: one secret output in state. */
export interface Credentials {
  /** `Name`: the login as the service returned it (the spec counts it as a credential). */
  name: string;
  /** `Password`. */
  password: string;
  /** The Swift-style API connection. */
  swift: SwiftConnection;
  /** The S3-compatible API connection. */
  s3: S3Connection;
  /** The FTP connection. */
  ftp: FtpConnection;
}

/** What the service returned, in the provider's own names. */
export interface CreatedUser extends Credentials {
  userId: number;
  state: string;
  tasks: Task[];
}

/** How a create ended when it did not end in a definite "nothing was created" error (those are thrown). */
export type CreateOutcome =
  | { kind: "created"; user: CreatedUser }
  /** 2xx, so the user exists, but the answer cannot be used; userId when it could be read. */
  | { kind: "unusable"; userId?: number; problems: string[] }
  /** The request was sent and no verdict came back: a user may or may not exist. */
  | { kind: "unknown"; detail: string; cause?: unknown };

/** A 2xx answer's body (cut at `defaults.maxResponseBytes` when `truncated`): the user exists, usable or not. */
export function parseAnswer(text: string, truncated: boolean): CreateOutcome {
  if (truncated)
    return {
      kind: "unusable",
      userId: salvageUserId(text),
      problems: [`the body is larger than ${defaults.maxResponseBytes} bytes`],
    };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { kind: "unusable", userId: salvageUserId(text), problems: ["the body is not valid JSON"] };
  }
  const parsed = parseCreatedUser(json);
  return parsed.ok
    ? { kind: "created", user: parsed.user }
    : { kind: "unusable", userId: parsed.userId, problems: parsed.problems };
}

/** The API's own error text, from `{error:{message}}`, `{message}`, `{error}` or plain text. */
export function apiMessage(text: string): string {
  let msg = text;
  try {
    const j = JSON.parse(text) as { error?: { message?: unknown } | string; message?: unknown };
    const candidate = typeof j.error === "object" ? j.error?.message : (j.error ?? j.message);
    if (typeof candidate === "string") msg = candidate;
  } catch {
    // not JSON: quote the text itself
  }
  return quote(msg.replace(/\s+/g, " ").trim(), 300);
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

/** Id is "number" in the spec; a string of digits is accepted too (JSON encoders differ). */
function asInt(v: unknown): number | undefined {
  if (typeof v === "number" && Number.isSafeInteger(v)) return v;
  if (typeof v === "string" && /^\d{1,15}$/.test(v)) return Number(v);
  return undefined;
}

/** Best effort on a body that is not valid JSON: the Id, if it is there, still identifies the user. */
function salvageUserId(text: string): number | undefined {
  const m = /"Id"\s*:\s*"?(\d{1,15})"?\s*[,}\s]/.exec(text);
  return m ? Number(m[1]) : undefined;
}

export function parseCreatedUser(
  body: unknown,
): { ok: true; user: CreatedUser } | { ok: false; problems: string[]; userId?: number } {
  const problems: string[] = [];
  if (!isObj(body)) return { ok: false, problems: ["the body is not a JSON object"] };

  const str = (o: unknown, field: string, path = field): string => {
    const v = isObj(o) ? o[field] : undefined;
    if (typeof v === "string" && v !== "") return v;
    problems.push(v === undefined ? `${path} is missing` : `${path} is not a non-empty string`);
    return "";
  };
  const obj = (member: string): Obj => {
    const v = body[member];
    if (isObj(v)) return v;
    problems.push(v === undefined ? `${member} is missing` : `${member} is not an object`);
    return {};
  };
  /** A connection object's string members, under the provider's names. */
  const fields = <K extends string>(o: Obj, member: string, names: Readonly<Record<K, string>>) =>
    Object.fromEntries(Object.entries<string>(names).map(([k, f]) => [k, str(o, f, `${member}.${f}`)])) as Record<
      K,
      string
    >;

  const userId = asInt(body.Id);
  if (userId === undefined) problems.push(body.Id === undefined ? "Id is missing" : "Id is not an integer");
  const name = str(body, "Name");
  const password = str(body, "Password");
  const [sw, s3, ftp] = [obj(CONNECTIONS.swift[0]), obj(CONNECTIONS.s3[0]), obj(CONNECTIONS.ftp[0])];
  const user: CreatedUser = {
    userId: userId ?? 0,
    name,
    password,
    swift: fields(sw, ...CONNECTIONS.swift),
    s3: fields(s3, ...CONNECTIONS.s3),
    ftp: fields(ftp, ...CONNECTIONS.ftp),
    state: str(body, "State"),
    tasks: [],
  };

  // The spec describes Tasks as an object but shows an array; accept both, and tolerate its
  // absence: the credentials are usable without it.
  const rawTasks = body.Tasks === undefined ? [] : Array.isArray(body.Tasks) ? body.Tasks : [body.Tasks];
  rawTasks.forEach((t, i) => {
    const at = `Tasks[${i}]`;
    const id = isObj(t) ? asInt(t.Id) : undefined;
    const progress = isObj(t) ? t.ProgressPercent : undefined;
    if (id === undefined) problems.push(`${at}.Id is missing or not an integer`);
    if (typeof progress !== "number") problems.push(`${at}.ProgressPercent is missing or not a number`);
    user.tasks.push({
      id: id ?? 0,
      progressPercent: typeof progress === "number" ? progress : 0,
      type: str(t, "Type", `${at}.Type`),
      state: str(t, "State", `${at}.State`),
      startDate: str(t, "StartDate", `${at}.StartDate`),
    });
  });
  return problems.length === 0 ? { ok: true, user } : { ok: false, problems, userId };
}
