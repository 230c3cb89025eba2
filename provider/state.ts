/**
 * What state records of a created user, and how: one plain `account` and one secret `secrets`,
 * each the JSON text of its object, plus the inputs; the user's Id is the resource id. Also the
 * rewrite of state written by 0.1.x into this shape.
 */
import type { Credentials, CreatedUser, FtpConnection, S3Connection, SwiftConnection, Task, UserInputs } from "./wire";

/** Where a user lives and what the service said about it: plain, stored once. */
export interface Account {
  /** The service the user was created on (its connection's base URL then). Absent in state written by 0.1.x until a refresh. */
  baseUrl?: string;
  state: string;
  tasks: Task[];
  swiftEndpoint: string;
  s3Endpoint: string;
  ftpHostName: string;
}

/** The credentials without their endpoints: the one secret output in state. */
export type Secrets = Pick<Credentials, "name" | "password"> & {
  swift: Omit<SwiftConnection, "endpoint">;
  s3: Omit<S3Connection, "endpoint">;
  ftp: Omit<FtpConnection, "hostName">;
};

/**
 * Outputs as stored in state from 0.2.0: the inputs, one plain `account` and one secret
 * `secrets` (marked by the resource's additionalSecretOutputs), each the JSON text of its
 * object: the engine walks every property value of every resource at each checkpoint of an
 * `up`, and one string per user costs it far less than a tree (bench/README.md "Where `up`
 * goes"). The user's Id is the resource id; everything else the resource offers is derived
 * from these in the program.
 */
export type StorageUserOutputs = Pick<UserInputs, "userName" | "persistPassword" | "connection" | "__urn"> & {
  account: string;
  secrets: string;
};

/** A stored `account` or `secrets`: JSON text (objects are accepted too); undefined when absent or unreadable. */
export function stored<T>(value: unknown): T | undefined {
  if (typeof value !== "string") return typeof value === "object" && value !== null ? (value as T) : undefined;
  try {
    return JSON.parse(value) as T;
  } catch {
    return undefined;
  }
}

export function toOutputs(inputs: UserInputs, user: CreatedUser, baseUrl: string): StorageUserOutputs {
  const { endpoint: swiftEndpoint, ...swift } = user.swift;
  const { endpoint: s3Endpoint, ...s3 } = user.s3;
  const { hostName: ftpHostName, ...ftp } = user.ftp;
  return {
    userName: inputs.userName,
    persistPassword: inputs.persistPassword,
    ...(inputs.connection === undefined ? {} : { connection: inputs.connection }),
    // delete and refresh get the outputs only: the URN they attach their warnings to.
    ...(typeof inputs.__urn === "string" ? { __urn: inputs.__urn } : {}),
    account: JSON.stringify({
      baseUrl,
      state: user.state,
      tasks: user.tasks,
      swiftEndpoint,
      s3Endpoint,
      ftpHostName,
    } satisfies Account),
    secrets: JSON.stringify({ name: user.name, password: user.password, swift, s3, ftp } satisfies Secrets),
  };
}

/** The credentials with their endpoints, as the program offers them. */
export function credentialsOf(account: Account, secrets: Secrets): Credentials {
  return {
    name: secrets.name,
    password: secrets.password,
    swift: { endpoint: account.swiftEndpoint, ...secrets.swift },
    s3: { endpoint: account.s3Endpoint, ...secrets.s3 },
    ftp: { hostName: account.ftpHostName, ...secrets.ftp },
  };
}

/** The StorageUserCreate task's Id, if the answer listed one. */
export const creationTaskIdOf = (tasks: Task[]): number | undefined =>
  tasks.find((t) => t.type === "StorageUserCreate")?.id;

/** Outputs of a created user as 0.1.x stored them (recorded failures never had credentials). */
export const needsUpgrade = (olds: Record<string, unknown>): boolean =>
  olds.account === undefined && typeof olds.credentials === "object" && olds.credentials !== null;

/**
 * Outputs as 0.1.x stored them (flat, the endpoints twice, `credentials` as the secret) in
 * today's shape; anything else unchanged. Pure: the values are the same, only where they sit.
 */
export function upgradeOutputs<T extends Record<string, unknown>>(olds: T): T {
  if (!needsUpgrade(olds)) return olds;
  const {
    userId: _i,
    creationTaskId: _c,
    state,
    tasks,
    swiftEndpoint,
    s3Endpoint,
    ftpHostName,
    baseUrl,
    credentials,
    ...rest
  } = olds;
  const c = credentials as Credentials;
  const { endpoint: _s, ...swift } = c.swift;
  const { endpoint: _3, ...s3 } = c.s3;
  const { hostName: _h, ...ftp } = c.ftp;
  const account = {
    ...(baseUrl === undefined ? {} : { baseUrl }),
    state,
    tasks,
    swiftEndpoint,
    s3Endpoint,
    ftpHostName,
  };
  return {
    ...rest,
    account: JSON.stringify(account),
    secrets: JSON.stringify({ name: c.name, password: c.password, swift, s3, ftp }),
  } as unknown as T;
}
