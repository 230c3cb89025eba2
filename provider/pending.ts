// Users that may exist on the service without being in the stack: the StorageUser creates a
// force-stopped run left as pending operations (docs/failure-modes.md "After a force-stop").
// The engine's own warning about them names URNs only; an auto-named user's name is in the
// pending operation's inputs, and nowhere else once the next `up` has dropped the operation.
// Plain data in, plain data out: no Pulumi SDK, so the bin starts fast and services can call it
// on what `stack.exportStack()` returns.

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
}

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

/** Thrown when the input is not a deployment in any accepted shape. */
export class PendingInputError extends Error {
  /** Always `PENDING_INPUT_UNREADABLE`, the `[CODE]` its message starts with. */
  readonly code = "PENDING_INPUT_UNREADABLE";
  constructor(what: string) {
    super(
      `[PENDING_INPUT_UNREADABLE] ${what}: pass the output of \`pulumi stack export\`, of the Automation API's stack.exportStack(), or a checkpoint file of a file backend (.pulumi/stacks, .pulumi/history, .pulumi/backups)`,
    );
    this.name = "PendingInputError";
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const isSecret = (v: unknown) => isObject(v) && SECRET_SIG in v;

/** The deployment object inside any accepted shape. */
function deploymentOf(input: unknown): Record<string, unknown> {
  if (!isObject(input)) throw new PendingInputError("the input is not a JSON object");
  if (isObject(input.deployment)) return input.deployment;
  if (isObject(input.checkpoint)) {
    // An empty stack's checkpoint has no `latest`: nothing pending.
    return isObject(input.checkpoint.latest) ? input.checkpoint.latest : {};
  }
  if ("pending_operations" in input || "resources" in input || "manifest" in input) return input;
  throw new PendingInputError("the input has neither `deployment`, `checkpoint` nor `resources`/`pending_operations`");
}

/**
 * The StorageUser creates a deployment holds as pending operations: each may have created a user
 * on the service that the stack does not record (a force-stopped `pulumi up`: SIGKILL, a cancelled
 * CI job, a second Ctrl-C). Run it on `pulumi stack export` **before** `pulumi cancel`/`pulumi up`:
 * the next `up` drops pending operations, and with them the only record of generated names.
 *
 * Accepts the object `pulumi stack export` prints, `await stack.exportStack()` of the Automation
 * API or its `.deployment`, or a file backend's checkpoint file. Secret values are never read:
 * a userName or connection kept as a secret comes back as undefined. Pending `updating` and
 * `deleting` operations are not listed: a StorageUser's update and delete make no API call.
 *
 * @throws PendingInputError (`[PENDING_INPUT_UNREADABLE]`) when the input is no deployment.
 */
export function pendingStorageUsers(deployment: DeploymentLike | unknown): PendingStorageUser[] {
  const d = deploymentOf(deployment);
  const ops = d.pending_operations ?? [];
  if (!Array.isArray(ops)) throw new PendingInputError("`pending_operations` is not a list");
  const out: PendingStorageUser[] = [];
  for (const op of ops as OperationLike[]) {
    if (!isObject(op) || op.type !== "creating" || !isObject(op.resource)) continue;
    const r = op.resource;
    if (r.type !== STORAGE_USER_TYPE) continue;
    const inputs = isObject(r.inputs) ? r.inputs : {};
    const userName = typeof inputs.userName === "string" ? inputs.userName : undefined;
    const connection = typeof inputs.connection === "string" ? inputs.connection : undefined;
    out.push({ userName, connection, connectionIsSecret: isSecret(inputs.connection), urn: String(r.urn ?? ""), operation: "creating" });
  }
  return out;
}

/** One line per user: `<userName>\t<service>\t<urn>`, as the bin prints it. Never a secret value. */
export function formatPendingStorageUser(p: PendingStorageUser): string {
  const name = p.userName ?? "(secret userName: run `pulumi stack export --show-secrets` to see it)";
  const service = p.connection
    ? `connection ${p.connection}`
    : p.connectionIsSecret
      ? "a connection whose name is secret"
      : "default connection (storage:baseUrl)";
  return `${name}\t${service}\t${p.urn}`;
}
