// Users that may exist on the service without being in the stack: the creates a force-stopped run left
// pending (docs/failure-modes.md). Plain data in and out, no SDK: the bin starts fast.
import type { Deployment } from "@pulumi/pulumi/automation";
import { StorageUserError } from "../messages";
import { generatedName, SUFFIX } from "../arguments";
import { isUserType, TYPES, typeFromUrn } from "../identity";
import { isObject, SECRET_SIG } from "../model";

/** A StorageUser create that may have made a user the stack does not record. */
export interface PendingStorageUser {
  /** The user name sent in the POST (given or generated); undefined when it is a secret in state. */
  userName: string | undefined;
  /** The named connection, or undefined: the default one. */
  connection: string | undefined;
  /** Whether the connection name is a secret in state (then `connection` is undefined). */
  connectionIsSecret: boolean;
  /** The resource's URN (what `pulumi state delete` and the engine's warning name). */
  urn: string;
  /** The engine's operation kind; always "creating": a StorageUser's update and delete call no API. */
  operation: "creating";
  /** See {@link PendingStatus}. */
  status: PendingStatus;
}

/** `unaccounted`: may exist, and no stack records it; `in stack`: the newest deployment holds it; `dealt with`: in `dealtWith`. */
export type PendingStatus = "unaccounted" | "in stack" | "dealt with";

/** `pulumi stack export` or `stack.exportStack()`, its `.deployment`, or a file backend's checkpoint file. */
export type DeploymentLike = Deployment | Record<string, unknown>;

type Obj = Record<string, unknown>;
const notADeployment = (why: string) =>
  new StorageUserError("PENDING_INPUT_UNREADABLE", { problem: "notADeployment", why });

function deploymentOf(input: unknown): Obj {
  if (!isObject(input)) throw notADeployment("the input is not a JSON object");
  if (isObject(input.deployment)) return input.deployment;
  if (isObject(input.checkpoint)) return isObject(input.checkpoint.latest) ? input.checkpoint.latest : {};
  if ("pending_operations" in input || "resources" in input || "manifest" in input) return input;
  throw notADeployment("the input has neither `deployment`, `checkpoint` nor `resources`/`pending_operations`");
}

const asString = (v: unknown) => (typeof v === "string" ? v : undefined);
const nameOf = (p: Obj, urn: unknown) =>
  asString(p.userName) ?? (typeof p[SUFFIX] === "string" ? generatedName(String(urn), p[SUFFIX]) : undefined);
const keyOf = (userName: string, connection: string | undefined) => `${userName}\n${connection ?? ""}`;
const timeOf = (d: Obj) =>
  isObject(d.manifest) && typeof d.manifest.time === "string" ? Date.parse(d.manifest.time) || 0 : 0;

/** The StorageUser creates deployments hold as pending operations, each of which may have made a user no stack
 * records: run it on `pulumi stack export` before `pulumi cancel` or `up` drop them. Each user once, its status
 * against the newest deployment. Throws `PENDING_INPUT_UNREADABLE` when an input is no deployment. */
export function pendingStorageUsers(
  // eslint-disable-next-line @typescript-eslint/no-redundant-type-constituents -- anything else is refused with PENDING_INPUT_UNREADABLE
  deployments: DeploymentLike | DeploymentLike[] | unknown,
  options: { dealtWith?: Iterable<string> } = {},
): PendingStorageUser[] {
  const all = (Array.isArray(deployments) ? deployments : [deployments]).map(deploymentOf);
  if (all.length === 0) throw notADeployment("no deployment was given");
  const newest = all.reduce((a, b) => (timeOf(b) >= timeOf(a) ? b : a));
  const recorded = new Set(
    [newest.resources ?? []].flat().flatMap((r: unknown) => {
      if (!isObject(r) || !isUserType(r.type)) return [];
      const p = { ...(isObject(r.inputs) ? r.inputs : {}), ...(isObject(r.outputs) ? r.outputs : {}) };
      const name = nameOf(p, r.urn);
      return name ? [keyOf(name, asString(p.connection))] : [];
    }),
  );
  const dealtWith = new Set([...(options.dealtWith ?? [])].map((line) => line.split("\t")[0].trim()).filter(Boolean));
  const seen = new Set<string>();
  const out: PendingStorageUser[] = [];
  for (const d of all) {
    if (d.pending_operations !== undefined && !Array.isArray(d.pending_operations))
      throw notADeployment("`pending_operations` is not a list");
    for (const op of (d.pending_operations ?? []) as unknown[]) {
      if (!isObject(op) || op.type !== "creating" || !isObject(op.resource) || !isUserType(op.resource.type)) continue;
      const inputs = isObject(op.resource.inputs) ? op.resource.inputs : {};
      const urn = asString(op.resource.urn) ?? "";
      const userName = nameOf(inputs, urn);
      const connection = asString(inputs.connection);
      const id = `${urn}\n${userName ?? ""}\n${connection ?? ""}`;
      if (seen.has(id)) continue;
      seen.add(id);
      const inStack = userName !== undefined && recorded.has(keyOf(userName, connection));
      const dealt = userName !== undefined && dealtWith.has(userName);
      const status = inStack ? "in stack" : dealt ? "dealt with" : "unaccounted";
      const connectionIsSecret = isObject(inputs.connection) && SECRET_SIG[0] in inputs.connection;
      out.push({ userName, connection, connectionIsSecret, urn, operation: "creating", status });
    }
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
      : `default connection (${typeFromUrn(p.urn) === TYPES.pluginUser ? "storage-user" : "storage"}:baseUrl)`;
  return `${name}\t${service}\t${p.urn}\t${p.status}`;
}
