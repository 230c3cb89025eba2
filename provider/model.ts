// A user described once: the answer's table drives the parsing, state's `account`/`secrets` and the types; the outputs' table each output.
const [PLAIN, SECRET] = ["plain", "secret"] as const;
type Kind = typeof PLAIN | typeof SECRET;

/** Each string field of the answer by the provider's name: its API name, plain (in `account`, an output of its own) or secret. */
export const answer = {
  name: ["Name", SECRET],
  password: ["Password", SECRET],
  state: ["State", PLAIN],
  swift: [
    "SwiftApiConnection",
    {
      endpoint: ["Endpoint", PLAIN],
      tenantId: ["TenantId", SECRET],
      accessKey: ["AccessKey", SECRET],
      password: ["Password", SECRET],
    },
  ],
  s3: [
    "S3Connection",
    { endpoint: ["Endpoint", PLAIN], accessKey: ["AccessKey", SECRET], secretKey: ["SecretKey", SECRET] },
  ],
  ftp: ["FtpConnection", { hostName: ["HostName", PLAIN], login: ["Login", SECRET], password: ["Password", SECRET] }],
} as const;
type Answer = typeof answer;
type Named<K> = { [N in keyof Answer]: Answer[N][1] extends K ? N : never }[keyof Answer];

/** The table flat: each field's connection (none at the top), name, API path, and its name in `account` if plain. */
export const fields = Object.entries(answer).flatMap(([top, [member, f]]): Field[] =>
  typeof f === "string"
    ? [{ name: top, api: [member], plain: f === PLAIN ? top : undefined }]
    : Object.entries(f).map(([name, [api, kind]]: [string, readonly [string, Kind]]) => ({
        conn: top,
        name,
        api: [member, api],
        plain: kind === PLAIN ? top + name[0].toUpperCase() + name.slice(1) : undefined,
      })),
);
type Field = { conn?: string; name: string; api: string[]; plain?: string };

/** The `swift` output (secret), from the answer's `SwiftApiConnection`. */
export type SwiftConnection = {
  /** `Endpoint`: where clients authenticate (`OS_AUTH_URL` in `env`). */ endpoint: string;
  /** `TenantId`. */ tenantId: string;
  /** `AccessKey`: the login. */ accessKey: string;
  /** `Password`. */ password: string;
};
/** The `s3` output (secret), from the answer's `S3Connection`. */
export type S3Connection = {
  /** `Endpoint`. */ endpoint: string;
  /** `AccessKey`. */ accessKey: string;
  /** `SecretKey`. */ secretKey: string;
};
/** The `ftp` output (secret), from the answer's `FtpConnection`. */
export type FtpConnection = {
  /** `HostName`. */ hostName: string;
  /** `Login`. */ login: string;
  /** `Password`. */ password: string;
};
/** Everything secret the API returned for one user, each connection with its endpoint. */
export interface Credentials {
  /** `Name`: the login as the service returned it (the spec counts it as a credential). */ name: string;
  /** `Password`. */ password: string;
  /** The Swift-style API connection. */ swift: SwiftConnection;
  /** The S3-compatible API connection. */ s3: S3Connection;
  /** The FTP connection. */ ftp: FtpConnection;
}
// The public types and the table agree both ways: a field missing on either side fails to compile.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type FieldsOf<C extends keyof Answer> = { -readonly [F in keyof Answer[C][1]]: string };
type Agree<T extends true[]> = T;
type _Agreement = Agree<
  [
    Same<FieldsOf<"swift">, SwiftConnection>,
    Same<FieldsOf<"s3">, S3Connection>,
    Same<FieldsOf<"ftp">, FtpConnection>,
    Same<keyof Credentials, Exclude<keyof Answer, Named<Kind>> | Named<typeof SECRET>>,
  ]
>;

/** One task of the answer's `Tasks`, as the `tasks` output holds it. */
export interface Task {
  /** `Id`; `creationTaskId` is that of the `StorageUserCreate` task. */ id: number;
  /** `ProgressPercent` at creation (never refreshed: the API has no read call). */ progressPercent: number;
  /** `Type`, e.g. `StorageUserCreate`. */ type: string;
  /** `State`, e.g. `New`. */ state: string;
  /** `StartDate`, as the service wrote it (`YYYY-MM-DDThh:mm:ss.fff`, no zone). */ startDate: string;
}

export type CreatedUser = Credentials & { userId: number; tasks: Task[] } & { [K in Named<typeof PLAIN>]: string };
/** State's plain part, stored as JSON text: the service the user lives on, when its rotation period started (its
 * create, or for older users the first up with rotateAfter), its tasks, every plain field. */
export type Account = { baseUrl?: string; createdAt?: string; tasks: Task[] } & Record<string, unknown>;
type Tree = Record<string, unknown>;
const at = (tree: Tree, conn?: string) => (conn ? ((tree[conn] ??= {}) as Tree) : tree);

export function split(
  user: CreatedUser,
  baseUrl: string | undefined,
  createdAt?: string,
): { account: string; secrets: string } {
  const account: Account = { baseUrl, createdAt, tasks: user.tasks };
  const secrets: Tree = {};
  for (const f of fields) {
    const value = at(user as unknown as Tree, f.conn)[f.name];
    if (f.plain) account[f.plain] = value;
    else at(secrets, f.conn)[f.name] = value;
  }
  return { account: JSON.stringify(account), secrets: JSON.stringify(secrets) };
}

export function credentialsOf(account: Account, secrets: Tree): Credentials {
  const out: Tree = {};
  for (const f of fields)
    if (f.conn || !f.plain) at(out, f.conn)[f.name] = f.plain ? account[f.plain] : at({ ...secrets }, f.conn)[f.name];
  return out as unknown as Credentials;
}

export const isObject = (v: unknown): v is Tree => typeof v === "object" && v !== null && !Array.isArray(v);
// JSON text parsed (an object passes as it is); undefined when absent or unreadable.
export function parseJson<T>(value: unknown): T | undefined {
  try {
    return (
      typeof value === "string" ? JSON.parse(value) : typeof value === "object" && value ? value : undefined
    ) as T;
  } catch {
    return undefined;
  }
}

export const isV01 = (olds: Tree) => olds.account === undefined && isObject(olds.credentials);

// Outputs as 0.1.x stored them (flat, a secret `credentials`) in today's shape: the same values, only where they sit.
export function upgrade<T extends Tree>(olds: T): T {
  if (!isV01(olds)) return olds;
  const { userId: _i, creationTaskId: _c, credentials, state, tasks, baseUrl, ...rest } = olds;
  const user = { ...(credentials as Credentials), state, tasks } as CreatedUser;
  for (const f of fields) if (f.plain) delete rest[f.plain];
  return { ...rest, ...split(user, baseUrl as string | undefined) } as unknown as T;
}

const STRING = { type: "string" };
const ref = (type: string) => ({ $ref: `#/types/storage-user:index:${type}` });

/** The arguments' schemas; each argument's prose is its doc comment in StorageUserArgs, its output's in StorageUser. */
export const inputs = {
  userName: { schema: STRING },
  persistPassword: { schema: { type: "boolean", default: false } },
  connection: { schema: STRING },
  rotateAfter: { schema: STRING },
} as const;

type Sources = { id: string; account: Account; credentials: Credentials };
const out =
  <S extends keyof Sources>(from: S) =>
  <T>(derive: (v: Sources[S]) => T, schema: object = STRING) => ({ from, schema, derive });
const [fromId, fromAccount, secret] = [out("id"), out("account"), out("credentials")];
const plain = (field: string) => fromAccount((a) => a[field] as string);
const INT = { type: "integer" };

/** The outputs, in the order they are documented, each one's doc comment its only description. Made from the credentials means secret. */
export const outputs = {
  /** The user's Id on the service; also the resource id. */
  userId: fromId((id) => (/^\d+$/.test(id) ? +id : undefined), INT),
  /** Account state at creation time (`New`). */
  state: plain("state"),
  /** Id of the StorageUserCreate task. */
  creationTaskId: fromAccount((a) => a.tasks?.find((t) => t.type === "StorageUserCreate")?.id, INT),
  /** The service's `Tasks` at creation. */
  tasks: fromAccount((a) => a.tasks, { type: "array", items: ref("Task") }),
  /** Plain: the Swift endpoint, for configuration that must not be secret. */
  swiftEndpoint: plain("swiftEndpoint"),
  /** Plain: the S3 endpoint, for configuration that must not be secret. */
  s3Endpoint: plain("s3Endpoint"),
  /** Plain: the FTP host name, for configuration that must not be secret. */
  ftpHostName: plain("ftpHostName"),
  /** The base URL of the service the user was created on (TypeScript: unset for users created by release 0.1.x until a refresh records it). */
  baseUrl: fromAccount((a) => a.baseUrl),
  /** Secret: name, password and the three connections below, endpoints included. */
  credentials: secret((c) => c, ref("Credentials")),
  /** Secret: the login as the service returned it. */
  name: secret((c) => c.name),
  /** Secret: the user's password. */
  password: secret((c) => c.password),
  /** Secret: Swift-style API connection. */
  swift: secret((c) => c.swift, ref("SwiftConnection")),
  /** Secret: S3-compatible API connection. */
  s3: secret((c) => c.s3, ref("S3Connection")),
  /** Secret: FTP connection. */
  ftp: secret((c) => c.ftp, ref("FtpConnection")),
  /** Secret: AWS_*, OS_* and FTP_* variables for applications. */
  env: secret(envOf, { type: "object", additionalProperties: STRING }),
  /** Secret: ftp://login:password@host/ (percent-encoded). */
  ftpUrl: secret((c) => ftpUrlOf(c.ftp)),
};

export type OutputName = keyof typeof outputs;
export const outputNames = Object.keys(outputs) as OutputName[];
export const isSecret = (name: OutputName) => outputs[name].from === "credentials";
/** Each output's value once created; only `baseUrl` may be undefined. */
export type OutputValues = {
  readonly [K in keyof typeof outputs]: ReturnType<(typeof outputs)[K]["derive"]> extends infer T
    ? K extends "baseUrl"
      ? T
      : NonNullable<T>
    : never;
};

export function sourcesOf(r: { id?: string; account?: unknown; secrets?: unknown }): Partial<Sources> {
  const [account, secrets] = [parseJson<Account>(r.account), parseJson<Tree>(r.secrets)];
  return { id: r.id, account, credentials: account && secrets && credentialsOf(account, secrets) };
}

// An output's value, undefined while its source is absent (a recorded failure has no `account`).
export function deriveOutput(name: OutputName, sources: Partial<Sources>): unknown {
  const o = outputs[name] as { from: keyof Sources; derive: (v: unknown) => unknown };
  return sources[o.from] === undefined ? undefined : o.derive(sources[o.from]);
}

/** ftp://login:password@host/ with both parts percent-encoded. */
export function ftpUrlOf(ftp: FtpConnection): string {
  return `ftp://${encodeURIComponent(ftp.login)}:${encodeURIComponent(ftp.password)}@${ftp.hostName}/`;
}

/** Conventional variable names per protocol (examples/README.md); Keystone v3 clients need its version and the user's domain. */
export function envOf({ swift, s3, ftp }: Credentials): Record<string, string> {
  return {
    AWS_ACCESS_KEY_ID: s3.accessKey,
    AWS_SECRET_ACCESS_KEY: s3.secretKey,
    AWS_ENDPOINT_URL_S3: s3.endpoint,
    OS_AUTH_URL: swift.endpoint,
    OS_TENANT_ID: swift.tenantId,
    OS_PROJECT_ID: swift.tenantId,
    OS_USERNAME: swift.accessKey,
    OS_PASSWORD: swift.password,
    ...(/\/v3\/?$/.test(swift.endpoint) ? { OS_IDENTITY_API_VERSION: "3", OS_USER_DOMAIN_NAME: "Default" } : {}),
    FTP_HOST: ftp.hostName,
    FTP_USER: ftp.login,
    FTP_PASSWORD: ftp.password,
    FTP_URL: ftpUrlOf(ftp),
  };
}

/** A user as the ledger records it: an element of its `current` output (an alias: assignable to Record<string, unknown>). */
export type TrackedUser = {
  /** Resource id: the service's user Id, or `unconfirmed-…` for a create that never confirmed. */
  id: string;
  /** The requested login (the StorageUser's `userName` output). */
  userName: string;
  /** The base URL of the service the user lives on (its `baseUrl` output); absent for users created by 0.1.x. */
  service?: string;
};

/** A user the stack has let go of that stays on the service: an element of the ledger's `forgotten` output. */
export interface ForgottenUser extends TrackedUser {
  /** The Pulumi resource name the user had in the stack. */
  resourceName: string;
  /** When the ledger noticed (ISO 8601, UTC). */
  at: string;
  /** `replaced`: a replace created a new user; `removed`: the resource left the program, or the stack was destroyed. */
  why: "replaced" | "removed";
  /** "may exist": the create never confirmed a user, so the service may or may not have one. */
  onService: "exists" | "may exist";
}

/** The engine's wire form of a secret value (sdk/go/common/resource/sig): `{ [SIG]: SECRET, value }`. */
export const SECRET_SIG = ["4dabf18193072939515e22adb298388d", "1b47061264138c4ac30d75fd1eb44270"] as const;
