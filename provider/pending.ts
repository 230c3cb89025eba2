// Users that may exist on the service without being in the stack: the StorageUser creates a
// force-stopped run left as pending operations (docs/failure-modes.md "After a force-stop").
// The engine's own warning about them names URNs only; an auto-named user's name is in the
// pending operation's inputs, and nowhere else once the next `up` has dropped the operation.
// Plain data in, plain data out: no Pulumi SDK, so the bin starts fast and services can call it
// on what `stack.exportStack()` returns.
import { StorageUserError } from "./errors";

/** Type token of StorageUser resources (`pulumi-nodejs:dynamic/<module>:<name>`). */
const STORAGE_USER_TYPE = "pulumi-nodejs:dynamic/storage:StorageUser";
/** Marks an encrypted/secret value in an exported deployment: never read its contents. */
const SECRET_SIG = "4dabf18193072939515e22adb298388d";

/** A StorageUser create that may have made a user the stack does not record. */
export interface PendingStorageUser {
  /** The user name sent in the POST (given or generated); undefined when it is a secret in state. */
  userName: string | undefined;
  /** The named connection (`storage:connections`), or undefined: the default one, `storage:baseUrl`. */
  connection: string | undefined;
  /** Whether the connection name is a secret in state (then `connection` is undefined). */
  connectionIsSecret: boolean;
  /** The resource's URN (what `pulumi state delete` / the engine's warning name). */
  urn: string;
  /** The engine's operation kind; always "creating": updates and deletes of a StorageUser call no API. */
  operation: "creating";
  /**
   * `unaccounted`: the user may exist on the service and no stack records it: deal with it.
   * `in stack`: the newest deployment read holds a StorageUser of that userName and connection
   * (a later `up` created it; nothing to do). `dealt with`: named in the operator's list
   * (`dealtWith`), typically the list an earlier run printed and the operator has worked through.
   */
  status: PendingStatus;
}

/** See {@link PendingStorageUser.status}. */
export type PendingStatus = "unaccounted" | "in stack" | "dealt with";

/** A pending operation as the engine writes it (apitype.OperationV2), only what is read here. */
interface OperationLike {
  type?: unknown;
  resource?: { urn?: unknown; type?: unknown; inputs?: Record<string, unknown> };
}

/** The shapes accepted, whichever the operator has at hand. */
export type DeploymentLike =
  /** `pulumi stack export` output, or `await stack.exportStack()` (Automation API). */
  | {
      /** The deployment: its resources and pending operations. */
      deployment?: unknown;
      /** The export format's version. */
      version?: number;
    }
  /** `.deployment` of either. */
  | {
      /** The operations in flight when the last run stopped: what is read. */
      pending_operations?: unknown;
      /** The stack's resources. */
      resources?: unknown;
      /** The deployment's manifest. */
      manifest?: unknown;
    }
  /** A file backend's checkpoint (`.pulumi/stacks/...`, `.pulumi/history/...checkpoint.json`, `.pulumi/backups/...`). */
  | {
      /** The checkpoint. */
      checkpoint?: {
        /** The deployment it holds; absent for an empty stack. */
        latest?: unknown;
      };
    };

/** The error for an input that is not a deployment in any accepted shape. */
const unreadable = (problem: "notAnObject" | "unknownShape" | "pendingNotAList" | "nothingGiven") =>
  new StorageUserError("PENDING_INPUT_UNREADABLE", { problem });

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const isSecret = (v: unknown) => isObject(v) && SECRET_SIG in v;

/** The deployment object inside any accepted shape. */
function deploymentOf(input: unknown): Record<string, unknown> {
  if (!isObject(input)) throw unreadable("notAnObject");
  if (isObject(input.deployment)) return input.deployment;
  if (isObject(input.checkpoint)) {
    // An empty stack's checkpoint has no `latest`: nothing pending.
    return isObject(input.checkpoint.latest) ? input.checkpoint.latest : {};
  }
  if ("pending_operations" in input || "resources" in input || "manifest" in input) return input;
  throw unreadable("unknownShape");
}

type Found = Omit<PendingStorageUser, "status">;

/** The pending StorageUser creates of one deployment. */
function pendingIn(d: Record<string, unknown>): Found[] {
  const ops = d.pending_operations ?? [];
  if (!Array.isArray(ops)) throw unreadable("pendingNotAList");
  const out: Found[] = [];
  for (const op of ops as OperationLike[]) {
    if (!isObject(op) || op.type !== "creating" || !isObject(op.resource)) continue;
    const r = op.resource;
    if (r.type !== STORAGE_USER_TYPE) continue;
    const inputs = isObject(r.inputs) ? r.inputs : {};
    const userName = typeof inputs.userName === "string" ? inputs.userName : undefined;
    const connection = typeof inputs.connection === "string" ? inputs.connection : undefined;
    out.push({
      userName,
      connection,
      connectionIsSecret: isSecret(inputs.connection),
      urn: typeof r.urn === "string" ? r.urn : "",
      operation: "creating",
    });
  }
  return out;
}

/** `userName` + connection of every StorageUser a deployment records. */
function recordedUsers(d: Record<string, unknown>): Set<string> {
  const keys = new Set<string>();
  for (const r of Array.isArray(d.resources) ? d.resources : []) {
    if (!isObject(r) || r.type !== STORAGE_USER_TYPE) continue;
    const props = { ...(isObject(r.inputs) ? r.inputs : {}), ...(isObject(r.outputs) ? r.outputs : {}) };
    if (typeof props.userName === "string")
      keys.add(keyOf(props.userName, typeof props.connection === "string" ? props.connection : undefined));
  }
  return keys;
}

const keyOf = (userName: string, connection: string | undefined) => `${userName}\n${connection ?? ""}`;
const timeOf = (d: Record<string, unknown>) =>
  isObject(d.manifest) && typeof d.manifest.time === "string" ? Date.parse(d.manifest.time) || 0 : 0;

/**
 * The StorageUser creates that deployments hold as pending operations: each may have created a
 * user on the service that the stack does not record (a force-stopped `pulumi up`: SIGKILL, a
 * cancelled CI job, a second Ctrl-C). Run it on `pulumi stack export` **before** `pulumi
 * cancel`/`pulumi up`: the next `up` drops pending operations, and with them the only record of
 * generated names.
 *
 * Accepts the object `pulumi stack export` prints, `await stack.exportStack()` of the Automation
 * API or its `.deployment`, or a file backend's checkpoint file; or a list of them (the stack's
 * export and its history checkpoints): each user is listed once, and its status is read against
 * the newest deployment given (by its manifest's time; the last one given when times tie).
 * `dealtWith`: user names the operator has dealt with (lines of an earlier run's output are
 * accepted as they are). Secret values are never read: a userName or connection kept as a secret
 * comes back as undefined. Pending `updating` and `deleting` operations are not listed: a
 * StorageUser's update and delete make no API call.
 *
 * @throws StorageUserError `PENDING_INPUT_UNREADABLE` when an input is no deployment.
 */
export function pendingStorageUsers(
  // eslint-disable-next-line @typescript-eslint/no-redundant-type-constituents -- the union documents what is expected; anything else is refused with PENDING_INPUT_UNREADABLE
  deployments: DeploymentLike | unknown,
  options: { dealtWith?: Iterable<string> } = {},
): PendingStorageUser[] {
  const all = (Array.isArray(deployments) ? deployments : [deployments]).map(deploymentOf);
  if (all.length === 0) throw unreadable("nothingGiven");
  const newest = all.reduce((a, b) => (timeOf(b) >= timeOf(a) ? b : a));
  const recorded = recordedUsers(newest);
  const dealtWith = new Set(
    [...(options.dealtWith ?? [])].map((line) => line.split("\t")[0].trim()).filter((n) => n !== ""),
  );
  const seen = new Set<string>();
  const out: PendingStorageUser[] = [];
  for (const p of all.flatMap(pendingIn)) {
    const id = `${p.urn}\n${p.userName ?? ""}\n${p.connection ?? ""}`;
    if (seen.has(id)) continue;
    seen.add(id);
    const status: PendingStatus =
      p.userName !== undefined && recorded.has(keyOf(p.userName, p.connection))
        ? "in stack"
        : p.userName !== undefined && dealtWith.has(p.userName)
          ? "dealt with"
          : "unaccounted";
    out.push({ ...p, status });
  }
  return out;
}

/** One line per user: `<userName>\t<service>\t<urn>\t<status>`, as the bin prints it. Never a secret value. */
export function formatPendingStorageUser(p: PendingStorageUser): string {
  const name = p.userName ?? "(secret userName: run `pulumi stack export --show-secrets` to see it)";
  const service = p.connection
    ? `connection ${p.connection}`
    : p.connectionIsSecret
      ? "a connection whose name is secret"
      : "default connection (storage:baseUrl)";
  return `${name}\t${service}\t${p.urn}\t${p.status}`;
}
