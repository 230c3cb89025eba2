/** The API's answer to POST /storage/users, checked field by field and turned into outputs. */

export interface Task {
  id: number;
  progressPercent: number;
  type: string;
  state: string;
  startDate: string;
}

export interface SwiftConnection {
  endpoint: string;
  tenantId: string;
  accessKey: string;
  password: string;
}

export interface S3Connection {
  endpoint: string;
  accessKey: string;
  secretKey: string;
}

export interface FtpConnection {
  hostName: string;
  login: string;
  password: string;
}

/** What the service returned, in the provider's own names. */
export interface CreatedUser {
  userId: number;
  name: string;
  password: string;
  swift: SwiftConnection;
  s3: S3Connection;
  ftp: FtpConnection;
  state: string;
  /** Id of the StorageUserCreate task; absent when the answer listed no such task. */
  creationTaskId?: number;
  tasks: Task[];
}

export type ParseResult =
  | { ok: true; user: CreatedUser }
  | { ok: false; problems: string[]; userId?: number };

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

/** Id is "number" in the spec; a string of digits is accepted too (JSON encoders differ). */
function asInt(v: unknown): number | undefined {
  if (typeof v === "number" && Number.isSafeInteger(v)) return v;
  if (typeof v === "string" && /^\d{1,15}$/.test(v)) return Number(v);
  return undefined;
}

/** Best effort on a body that is not valid JSON: the Id, if it is there, still identifies the user. */
export function salvageUserId(text: string): number | undefined {
  const m = /"Id"\s*:\s*"?(\d{1,15})"?\s*[,}\s]/.exec(text);
  return m ? Number(m[1]) : undefined;
}

export function parseCreatedUser(body: unknown): ParseResult {
  const problems: string[] = [];
  if (!isObj(body)) return { ok: false, problems: ["the body is not a JSON object"] };

  const str = (o: unknown, field: string, path: string): string => {
    const v = isObj(o) ? o[field] : undefined;
    if (typeof v === "string" && v !== "") return v;
    problems.push(v === undefined ? `${path} is missing` : `${path} is not a non-empty string`);
    return "";
  };
  const obj = (field: string): Obj => {
    const v = body[field];
    if (isObj(v)) return v;
    problems.push(v === undefined ? `${field} is missing` : `${field} is not an object`);
    return {};
  };

  const userId = asInt(body.Id);
  if (userId === undefined) problems.push(body.Id === undefined ? "Id is missing" : "Id is not an integer");
  const name = str(body, "Name", "Name");
  const password = str(body, "Password", "Password");
  const sw = obj("SwiftApiConnection");
  const s3 = obj("S3Connection");
  const ftp = obj("FtpConnection");
  const user: CreatedUser = {
    userId: userId ?? 0,
    name,
    password,
    swift: {
      endpoint: str(sw, "Endpoint", "SwiftApiConnection.Endpoint"),
      tenantId: str(sw, "TenantId", "SwiftApiConnection.TenantId"),
      accessKey: str(sw, "AccessKey", "SwiftApiConnection.AccessKey"),
      password: str(sw, "Password", "SwiftApiConnection.Password"),
    },
    s3: {
      endpoint: str(s3, "Endpoint", "S3Connection.Endpoint"),
      accessKey: str(s3, "AccessKey", "S3Connection.AccessKey"),
      secretKey: str(s3, "SecretKey", "S3Connection.SecretKey"),
    },
    ftp: {
      hostName: str(ftp, "HostName", "FtpConnection.HostName"),
      login: str(ftp, "Login", "FtpConnection.Login"),
      password: str(ftp, "Password", "FtpConnection.Password"),
    },
    state: str(body, "State", "State"),
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
  const creation = user.tasks.find((t) => t.type === "StorageUserCreate");
  if (creation) user.creationTaskId = creation.id;

  return problems.length === 0 ? { ok: true, user } : { ok: false, problems, userId };
}
