/**
 * What the plugin hands the engine: the state TypeScript programs record (`account`, `secrets`)
 * plus the typed outputs a TypeScript StorageUser derives from it in the program, here derived
 * in the plugin. A custom resource's provider marks its secrets itself: every value made from
 * `secrets` goes out wrapped in the engine's secret signature.
 */
import { Account, creationTaskIdOf, Credentials, credentialsOf, Secrets, stored } from "../wire";
import { envOf, ftpUrlOf } from "../program/app-config";

// The engine's wire form of a secret (sdk/go/common/resource/sig: Secret).
const SIG = "4dabf18193072939515e22adb298388d";
const SECRET = "1b47061264138c4ac30d75fd1eb44270";

type Props = Record<string, unknown>;
const isSecret = (v: unknown): v is { value: unknown } => typeof v === "object" && v !== null && (v as Props)[SIG] === SECRET;
const secret = (value: unknown) => ({ [SIG]: SECRET, value });

// eslint-disable-next-line @typescript-eslint/no-require-imports
export const pluginVersion: string = require("../../../package.json").version;

/** Plain values for the lifecycle code: secrets unwrapped, derived outputs dropped (state keeps `account` and `secrets`). */
export function fromEngine(props: Props | undefined): Props {
  const out: Props = {};
  for (const [k, v] of Object.entries(props ?? {})) {
    if (derivedKeys.has(k)) continue;
    out[k] = isSecret(v) ? v.value : v;
  }
  return out;
}

const derivedKeys = new Set(["userId", "state", "tasks", "creationTaskId", "swiftEndpoint", "s3Endpoint", "ftpHostName", "baseUrl", "credentials", "name", "password", "swift", "s3", "ftp", "env", "ftpUrl"]);
export const secretKeys = ["secrets", "credentials", "name", "password", "swift", "s3", "ftp", "env", "ftpUrl"] as const;

/** The recorded outputs plus the typed ones, absent while state holds no account (a recorded failure). */
export function outputsOf(outs: Props, id?: string): Props {
  const account = typeof outs.account === "string" ? stored<Account>(outs.account) : undefined;
  const secrets = typeof outs.secrets === "string" ? stored<Secrets>(outs.secrets) : undefined;
  const typed: Props = {};
  if (id !== undefined && /^\d+$/.test(id)) typed.userId = Number(id);
  if (account) {
    Object.assign(typed, {
      state: account.state,
      tasks: account.tasks,
      creationTaskId: creationTaskIdOf(account.tasks),
      swiftEndpoint: account.swiftEndpoint,
      s3Endpoint: account.s3Endpoint,
      ftpHostName: account.ftpHostName,
      baseUrl: account.baseUrl,
    });
    if (secrets) {
      const c: Credentials = credentialsOf(account, secrets);
      Object.assign(typed, { credentials: c, name: c.name, password: c.password, swift: c.swift, s3: c.s3, ftp: c.ftp, env: envOf(c), ftpUrl: ftpUrlOf(c.ftp) });
    }
  }
  return { ...outs, ...typed };
}

/** Secret-bearing values wrapped for the engine; undefined dropped (a Struct cannot hold it). */
export function toEngine(props: Props): Props {
  const out: Props = {};
  for (const [k, v] of Object.entries(props)) {
    if (v === undefined) continue;
    out[k] = (secretKeys as readonly string[]).includes(k) ? secret(v) : v;
  }
  return out;
}
