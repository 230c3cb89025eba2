/**
 * `pulumi-storage-user/automation`, for services that drive Pulumi and for operators: a run's
 * failures and warnings typed (from its engine events, else from the CommandError's text), config
 * checked before it is written, and the creates a force-stop left pending. docs/automation-api.md.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { assertStorageConfig, configKeys, connectionsKey, parseConnections, settingKeys } from "./connections";
import { errorCodes, StorageUserError, StorageUserErrorCode } from "./errors";
import { StorageUserWarningCode, warningCodes } from "./warnings";
import { readProjectFile, stackConfigFile } from "./project-file";

/** One failure or warning of a StorageUser (or its ledger, or the run's configuration). */
export interface StorageUserDiagnostic<Code extends string> {
  /** The stable code, the `[CODE]` the message starts with. */
  code: Code;
  /** The whole text, `[CODE] what happened: what to do`. */
  message: string;
  /** The resource it concerns; undefined for the stack (configuration refused before anything was registered) or when read from text. */
  urn?: string;
  /** The resource's Pulumi name, from its URN or from the message. */
  resourceName?: string;
  /** The user's requested login, when the run's events carried the resource's inputs. */
  userName?: string;
}
/** A failure of a run: a diagnostic of severity `error` with one of the error codes. */
export type StorageUserFailure = StorageUserDiagnostic<StorageUserErrorCode>;
/** A warning of a run: a diagnostic of severity `warning` with one of the warning codes. */
export type StorageUserWarning = StorageUserDiagnostic<StorageUserWarningCode>;

/** The parts of `@pulumi/pulumi/automation`'s EngineEvent read here. */
export interface EngineEventLike {
  /** A failure or warning: its text, its severity and, for a resource, its URN. */
  diagnosticEvent?: {
    /** The resource it concerns; absent for the stack. */
    urn?: string;
    /** The text, `[CODE] …` when it is the provider's. */
    message: string;
    /** `error`, `warning`, or another severity (ignored). */
    severity: string;
  };
  /** A step about to run: where a resource's inputs, hence its userName, are read from. */
  resourcePreEvent?: {
    /** The step. */
    metadata: StepLike;
  };
  /** A step done: read like `resourcePreEvent`. */
  resOutputsEvent?: {
    /** The step. */
    metadata: StepLike;
  };
  /** A step failed: read like `resourcePreEvent`. */
  resOpFailedEvent?: {
    /** The step. */
    metadata: StepLike;
  };
}
/**
 * A step's metadata, only what is read here.
 * @inline
 */
interface StepLike {
  /** The resource's URN. */
  urn: string;
  /** The resource's state before the step. */
  old?: {
    /** Its inputs, `userName` among them. */
    inputs?: Record<string, unknown>;
  };
  /** The resource's state after the step. */
  new?: {
    /** Its inputs, `userName` among them. */
    inputs?: Record<string, unknown>;
  };
}

const CODED = /^\[([A-Z_]+)\] /;
/** Program-side refusals name the resource: "StorageUser 'app' has invalid arguments…". */
const NAMED = /^\[[A-Z_]+\] StorageUser(?:Ledger)? '([^']+)'/;
const OUR_TYPE = /::pulumi-nodejs:dynamic\/storage:StorageUser(?:Ledger)?::/;

/** `urn:pulumi:stack::project::type::name` → name (the name may contain "::"). */
const nameOfUrn = (urn: string) => urn.split("::").slice(3).join("::");

function diagnostic<Code extends string>(
  codes: readonly Code[],
  text: string,
  urn?: string,
  userName?: string,
): StorageUserDiagnostic<Code> | undefined {
  const message = text.trim();
  const code = CODED.exec(message)?.[1] as Code | undefined;
  if (!code || !codes.includes(code)) return undefined;
  // A diagnostic of another resource (the stack's "update failed") is no StorageUser's.
  const ours = urn !== undefined && OUR_TYPE.test(urn);
  const resourceName = ours ? nameOfUrn(urn) : NAMED.exec(message)?.[1];
  return {
    code,
    message,
    ...(ours ? { urn } : {}),
    ...(resourceName ? { resourceName } : {}),
    ...(ours && userName ? { userName } : {}),
  };
}

function unique<T extends StorageUserDiagnostic<string>>(list: T[]): T[] {
  const seen = new Set<string>();
  return list.filter((d) => {
    const key = `${d.urn ?? d.resourceName ?? ""}\n${d.message}`;
    return seen.has(key) ? false : (seen.add(key), true);
  });
}

/** The failures and warnings in a run's engine events, each once, in the order they came. */
export function storageUserDiagnostics(events: Iterable<EngineEventLike>): {
  /** Diagnostics of severity `error` with an error code. */
  failures: StorageUserFailure[];
  /** Diagnostics of severity `warning` with a warning code. */
  warnings: StorageUserWarning[];
} {
  const list = [...events];
  const userNames = new Map<string, string>();
  for (const e of list) {
    const step = e.resourcePreEvent?.metadata ?? e.resOutputsEvent?.metadata ?? e.resOpFailedEvent?.metadata;
    const name = step?.new?.inputs?.userName ?? step?.old?.inputs?.userName;
    if (step && typeof name === "string") userNames.set(step.urn, name);
  }
  const failures: StorageUserFailure[] = [];
  const warnings: StorageUserWarning[] = [];
  for (const e of list) {
    const d = e.diagnosticEvent;
    if (!d) continue;
    const userName = d.urn === undefined ? undefined : userNames.get(d.urn);
    if (d.severity === "error") {
      const f = diagnostic(errorCodes, d.message, d.urn, userName);
      if (f) failures.push(f);
    } else if (d.severity === "warning") {
      const w = diagnostic(warningCodes, d.message, d.urn, userName);
      if (w) warnings.push(w);
    }
  }
  return { failures: unique(failures), warnings: unique(warnings) };
}

/**
 * The provider's failures in a failed `up`/`preview`/`refresh`/`destroy`: from its engine
 * events when given (with URN and userName), else from the error's text (a CommandError's
 * message holds the CLI's output). Empty when the failure is not the provider's.
 */
// eslint-disable-next-line @typescript-eslint/no-redundant-type-constituents -- the union documents what is expected; anything else is read as no events
export function storageUserFailures(source: Iterable<EngineEventLike> | unknown): StorageUserFailure[] {
  if (source !== null && typeof source === "object" && Symbol.iterator in source) {
    return storageUserDiagnostics(source as Iterable<EngineEventLike>).failures;
  }
  const text = source instanceof Error ? source.message : typeof source === "string" ? source : "";
  const failures: StorageUserFailure[] = [];
  let header: string | undefined;
  for (const line of text.split("\n")) {
    // The Diagnostics section: "  pulumi-nodejs:dynamic/storage:StorageUser (app):", then its lines.
    const section = /^ {2}(\S+) \((.+)\):$/.exec(line);
    if (section)
      header = /^pulumi-nodejs:dynamic\/storage:StorageUser(Ledger)?$/.test(section[1]) ? section[2] : undefined;
    const at = line.indexOf("error: [");
    if (at < 0) continue;
    // A progress line names its resource before the error: " +  pulumi-nodejs:dynamic/storage:StorageUser app creating (0s) error: …".
    const progress = /pulumi-nodejs:dynamic\/storage:StorageUser(?:Ledger)? (\S+) /.exec(line.slice(0, at))?.[1];
    const f = diagnostic(errorCodes, line.slice(at + "error: ".length));
    if (f)
      failures.push({ ...f, ...((progress ?? header) && !f.resourceName ? { resourceName: progress ?? header } : {}) });
  }
  return unique(failures);
}

/** Config values as the Automation API takes and gives them (`ConfigMap`). */
export type ConfigMapLike = Record<
  string,
  {
    /** The value; an object set without `path` is its JSON text. */
    value: string;
    /** Whether it is to be (or is) stored encrypted. */
    secret?: boolean;
  }
>;

const plainToken = (connection?: string) => {
  const k = settingKeys("accessToken", connection);
  return new StorageUserError("CONFIG_NOT_SECRET", {
    key: k.key,
    where: "the config about to be set",
    path: k.path,
    env: k.env,
    inline: true,
  });
};

/** Sets `value` at the dot-separated `segments` of `tree` (the part of Pulumi's path syntax config keys here use). */
function setPath(tree: Record<string, unknown>, segments: string[], value: string): void {
  const [head, ...rest] = segments;
  if (rest.length === 0) tree[head] = value;
  else {
    const next = typeof tree[head] === "object" && tree[head] !== null ? (tree[head] as Record<string, unknown>) : {};
    tree[head] = next;
    setPath(next, rest, value);
  }
}

/**
 * Refuses config **before** it is written anywhere: call it on the ConfigMap a service is about
 * to give `stack.setAllConfig(config, path)`, so a plain token never reaches the workspace's
 * `Pulumi.<stack>.yaml` or the backend. Throws `[CONFIG_NOT_SECRET]` for a token without
 * `secret: true`, and `[CONFIG_INVALID]` for any key under `storage:` that is no setting (a typo
 * such as `storage:accessTokn` or `storage:connections.eu.accesToken`), naming the key, never
 * the value. `path`: the keys use Pulumi's path syntax, as `setAllConfig(config, true)` reads them.
 */
export function checkStorageConfig(config: ConfigMapLike, options: { path?: boolean } = {}): void {
  const values: Record<string, string> = {};
  const trees: Record<string, Record<string, unknown>> = {};
  for (const [key, { value }] of Object.entries(config)) {
    const dot = options.path ? key.indexOf(".") : -1;
    if (dot < 0) values[key] = value;
    else setPath((trees[key.slice(0, dot)] ??= {}), key.slice(dot + 1).split("."), value);
  }
  for (const [top, tree] of Object.entries(trees)) values[top] = JSON.stringify(tree);
  assertStorageConfig(values, undefined);
  const token = config[configKeys.accessToken.key];
  if (token?.value && !token.secret) throw plainToken();
  for (const [name, entry] of Object.entries(parseConnections(values[connectionsKey]) ?? {})) {
    if (!entry.accessToken) continue;
    const secret = options.path ? config[settingKeys("accessToken", name).key]?.secret : config[connectionsKey]?.secret;
    if (!secret) throw plainToken(name);
  }
}

/** The parts of an Automation API `Stack` read by checkStackConfig. */
export interface StackLike {
  /** The stack's name, which names its settings file `Pulumi.<name>.yaml`. */
  name: string;
  /** The stack's config: each key's value and whether it is secret. */
  getAllConfig(): Promise<ConfigMapLike>;
  /** The workspace, whose `workDir` holds the stack's settings file. */
  workspace: {
    /** The directory of `Pulumi.yaml` and the stack settings files. */
    workDir: string;
  };
}

/**
 * Refuses a stack whose existing config (set earlier, by hand or by another service) holds a
 * storage API token in plain text (`[CONFIG_NOT_SECRET]`) or a key under `storage:` that is no
 * setting (`[CONFIG_INVALID]`), before any Pulumi operation records that config in the backend's
 * history. Config a service sets itself goes through {@link checkStorageConfig} first, before it
 * is written. The same two sources as the program's check (program/stack-config.ts): the secret
 * flag of each top-level key, and, for the tokens inside `storage:connections`, the stack's
 * settings file, where a secret value is stored encrypted.
 */
export async function checkStackConfig(stack: StackLike): Promise<void> {
  const config = await stack.getAllConfig();
  const project = readProjectFile(stack.workspace.workDir);
  assertStorageConfig(Object.fromEntries(Object.entries(config).map(([k, v]) => [k, v.value])), project?.name);
  const file = stackConfigFile(stack.workspace.workDir, stack.name, project);
  const where = file ? path.basename(file) : "the stack's config file";
  const token = config[configKeys.accessToken.key];
  if (token?.value && !token.secret) {
    const k = settingKeys("accessToken");
    throw new StorageUserError("CONFIG_NOT_SECRET", { key: k.key, where, path: k.path, env: k.env, inline: true });
  }
  const entry = config[connectionsKey];
  const text = file ? fs.readFileSync(file, "utf8") : "";
  for (const [name, c] of Object.entries(parseConnections(entry?.value) ?? {})) {
    // Short values could appear in the file by coincidence; real tokens are longer.
    if (c.accessToken && (!entry.secret || (c.accessToken.length >= 8 && text.includes(c.accessToken)))) {
      const k = settingKeys("accessToken", name);
      throw new StorageUserError("CONFIG_NOT_SECRET", { key: k.key, where, path: k.path, env: k.env, inline: true });
    }
  }
}

/** After a force-stopped `up`: the StorageUser creates left pending, users that may exist unrecorded (docs/failure-modes.md); also the bin `pulumi-storage-user pending`. */
export { pendingStorageUsers, formatPendingStorageUser } from "./pending";
export type { PendingStatus, PendingStorageUser, DeploymentLike } from "./pending";
