/**
 * StorageUser described once: each input and output with its schema type, its description and,
 * for an output, how it is derived from what state holds and whether it is secret. The
 * TypeScript class, the plugin's outputs and schema follow this; test/unit/description.test.ts holds
 * the class's JSDoc and docs/outputs.md to it.
 */
import { envOf, ftpUrlOf } from "./program/app-config";
import { Account, creationTaskIdOf, credentialsOf, Secrets, stored } from "./state";
import type { Credentials } from "./wire";

type Schema = Record<string, unknown>;
const str: Schema = { type: "string" };
const ref = (type: string): Schema => ({ $ref: `#/types/storage-user:index:${type}` });

/** The arguments: `description` documents the argument, `output` the output of the same name. */
export const inputs = {
  userName: {
    schema: str,
    description:
      'Requested login of the new user (request member `UserName`). Changing it creates a new user. Left out, a name is generated on create: the resource name, "-", 7 random hex digits, kept on every update and new on every replace, which is how to rotate credentials (docs/lifecycle.md "Rotation").',
    output: "The requested login, as sent: the given userName, or the generated one.",
  },
  persistPassword: {
    schema: { type: "boolean", default: false },
    description:
      "Request member `PersistPassword`, sent as 1 or 0. The spec gives it no meaning; changing it creates a new user.",
    output: "The `persistPassword` input, as sent (`false` unless given).",
  },
  connection: {
    schema: str,
    description:
      'Name of a connection, for users on several services or accounts in one program: in TypeScript an entry of the stack config object `storage:connections`, in the plugin the environment variables STORAGE_API_URL_<NAME> and STORAGE_ACCESS_TOKEN_<NAME>. Omitted: the default connection. A user never moves on its own (docs/lifecycle.md "Where a user lives").',
    output: "The connection name the user was last deployed with; undefined: the default one.",
  },
} as const;

/** What an output is made from: the resource id, the plain `account`, or the credentials (`account` + `secrets`). */
interface Sources {
  id: string;
  account: Account;
  credentials: Credentials;
}

interface Output<S extends keyof Sources> {
  from: S;
  derive: (value: Sources[S]) => unknown;
  schema: Schema;
  description: string;
}
const output = <S extends keyof Sources>(
  from: S,
  derive: (value: Sources[S]) => unknown,
  schema: Schema,
  description: string,
): Output<S> => ({ from, derive, schema, description });

/**
 * The derived outputs, in the order they are documented. An output made from the credentials is
 * secret, and only those are: the plain ones read nothing secret.
 */
export const outputs = {
  userId: output(
    "id",
    (id) => (/^\d+$/.test(id) ? Number(id) : undefined),
    { type: "integer" },
    "The user's Id on the service; also the resource id.",
  ),
  state: output("account", (a) => a.state, str, "Account state at creation time (`New`)."),
  creationTaskId: output(
    "account",
    (a) => creationTaskIdOf(a.tasks),
    { type: "integer" },
    "Id of the StorageUserCreate task.",
  ),
  tasks: output(
    "account",
    (a) => a.tasks,
    { type: "array", items: ref("Task") },
    "The service's `Tasks` at creation (an array, or a single object, both accepted).",
  ),
  swiftEndpoint: output(
    "account",
    (a) => a.swiftEndpoint,
    str,
    "Plain: the Swift endpoint, for configuration that must not be secret.",
  ),
  s3Endpoint: output(
    "account",
    (a) => a.s3Endpoint,
    str,
    "Plain: the S3 endpoint, for configuration that must not be secret.",
  ),
  ftpHostName: output(
    "account",
    (a) => a.ftpHostName,
    str,
    "Plain: the FTP host name, for configuration that must not be secret.",
  ),
  baseUrl: output(
    "account",
    (a) => a.baseUrl,
    str,
    "The base URL of the service the user was created on (plain). Undefined for users created by 0.1.x (which did not record it) until `pulumi refresh` records it.",
  ),
  credentials: output(
    "credentials",
    (c) => c,
    ref("Credentials"),
    "Secret: name, password and the three connections below, endpoints included.",
  ),
  name: output("credentials", (c) => c.name, str, "Secret: the login as the service returned it."),
  password: output("credentials", (c) => c.password, str, "Secret: the user's password."),
  swift: output("credentials", (c) => c.swift, ref("SwiftConnection"), "Secret: Swift-style API connection."),
  s3: output("credentials", (c) => c.s3, ref("S3Connection"), "Secret: S3-compatible API connection."),
  ftp: output("credentials", (c) => c.ftp, ref("FtpConnection"), "Secret: FTP connection."),
  env: output(
    "credentials",
    envOf,
    { type: "object", additionalProperties: str },
    "Secret: AWS_*, OS_* and FTP_* variables for applications.",
  ),
  ftpUrl: output("credentials", (c) => ftpUrlOf(c.ftp), str, "Secret: ftp://login:password@host/ (percent-encoded)."),
};

export type OutputName = keyof typeof outputs;
export const outputNames = Object.keys(outputs) as OutputName[];
export const isSecretOutput = (name: OutputName): boolean => outputs[name].from === "credentials";

/** What state records, as the engine hands it back: `account` and `secrets` as JSON text. */
export interface Recorded {
  id?: string;
  account?: unknown;
  secrets?: unknown;
}

/** The sources present in a record: a recorded failure or state of 0.1.x has no `account`. */
export function sourcesOf(r: Recorded): Partial<Sources> {
  const account = stored<Account>(r.account);
  const secrets = stored<Secrets>(r.secrets);
  return {
    ...(r.id === undefined ? {} : { id: r.id }),
    ...(account ? { account } : {}),
    ...(account && secrets ? { credentials: credentialsOf(account, secrets) } : {}),
  };
}

/** One output's value from the sources, undefined while its source is absent. */
export function deriveOutput(name: OutputName, sources: Partial<Sources>): unknown {
  const o = outputs[name] as Output<keyof Sources>;
  const source = sources[o.from];
  return source === undefined ? undefined : o.derive(source);
}
