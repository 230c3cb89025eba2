/**
 * Every warning the provider shows: not errors (nothing fails), but each names the user and what
 * stays where, so nothing is created or forgotten silently. Each kind has a stable code, which
 * the plugin puts in front of the text when it emits it (plugin/engine-log.ts).
 */
import type { ForgottenUser } from "./ledger-types";

/**
 * The warnings a user or a pipeline must act on, each with a stable code at the start of its
 * text (`[USER_LEFT_STACK] …`), emitted with severity `warning` under the resource's URN.
 */
export const warningCodes = [
  "REPLACE_LEAVES_USER",
  "SERVICE_MOVED",
  "CONNECTION_CHANGED",
  "SERVICE_READDRESSED",
  "STATE_UPGRADE",
  "SERVICE_RECORDED",
  "USER_LEFT_STACK",
  "LEDGER_GREW",
  "LEDGER_DELETED",
] as const;
/** One of {@link warningCodes}: the `code` of a `StorageUserWarning` (`pulumi-storage-user/automation`). */
export type StorageUserWarningCode = (typeof warningCodes)[number];

export interface UserRef {
  id: string;
  userName: string;
  /** Where the user lives (recorded base URL); undefined for state written by 0.1.x. */
  service?: string;
  /** The resource's URN, when the program passed it (the `__urn` input). */
  urn?: unknown;
}

/** What a StorageUser's connection is called in messages. */
export function connectionLabel(connection?: string): string {
  return connection === undefined ? "the default connection (storage:baseUrl)" : `connection '${connection}'`;
}

const serviceOf = (u: UserRef) =>
  u.service ?? "its service (not recorded: created by 0.1.x; `pulumi refresh` records it)";

/** diff, when a replace is planned: shown by preview, before anything happens. */
export function replaceWarning(u: UserRef, newService: string | undefined): string {
  const target = newService && newService !== u.service ? ` on ${newService}` : "";
  if (u.id.startsWith("unconfirmed-")) {
    return (
      `warning: StorageUser '${u.userName}' (${u.id}, on ${serviceOf(u)}) is to be replaced: its create never confirmed a user, so a user '${u.userName}' may stay on the service ` +
      "after the new one is created: check there and delete it if it exists"
    );
  }
  return (
    `warning: StorageUser '${u.userName}' (id ${u.id}, on ${serviceOf(u)}) is to be replaced: the new user is created first${target}, ` +
    `then this one leaves the stack but stays on the service, which has no delete call: delete user ${u.id} there afterwards ` +
    "(a StorageUserLedger, if the program has one, lists it until you do)"
  );
}

/** diff, when the user's connection now points at another service than the one it lives on. */
export function serviceMovedWarning(u: UserRef & { service: string }, connection: string, now: string): string {
  return (
    `warning: StorageUser '${u.userName}' (id ${u.id}) lives on ${u.service}, but ${connection} now points at ${now}: ` +
    `nothing is created, moved or forgotten; the user stays recorded on ${u.service}. ` +
    `If ${now} is the same service under a new address, run \`STORAGE_SERVICE_NEW_ADDRESS=${now} pulumi up\` to record it; ` +
    `to create a new user on ${now} instead, run \`pulumi up --replace ${urnArg(u.urn).arg}\` (user ${u.id} then stays on ${u.service}, named in a warning and in a StorageUserLedger if the program has one); ` +
    "otherwise point the connection back"
  );
}

/** diff, when the user's connection name changes to one that points at another service. */
export function connectionChangedWarning(
  u: UserRef & { service: string },
  from: string,
  to: string,
  now: string,
): string {
  return (
    `warning: StorageUser '${u.userName}' (id ${u.id}) lives on ${u.service}; its connection changes from ${from} to ${to}, which points at ${now}: ` +
    `the user is not moved (an update records the new connection name, with no API call) and stays on ${u.service}, ` +
    `unless the resource sets replaceOnChanges: ["connection"], which creates a new user on ${now} instead and leaves user ${u.id} on ${u.service}. ` +
    `To create a new user on ${now} once, run \`pulumi up --replace ${urnArg(u.urn).arg}\`; if ${now} is the same service under a new address, run \`STORAGE_SERVICE_NEW_ADDRESS=${now} pulumi up\` to record it`
  );
}

/** diff, when STORAGE_SERVICE_NEW_ADDRESS says the user's service now answers at its connection's new address. */
export function serviceReaddressedWarning(u: UserRef & { service: string }, connection: string, now: string): string {
  return (
    `warning: StorageUser '${u.userName}' (id ${u.id}) is recorded on ${now}, where ${connection} points, instead of ${u.service}, ` +
    "because STORAGE_SERVICE_NEW_ADDRESS names that address as the same service (an update with no API call)"
  );
}

/** diff: state written by 0.1.x is rewritten in today's shape by the next up. */
export function upgradeWarning(u: UserRef): string {
  return (
    `warning: StorageUser '${u.userName}' (id ${u.id}) was recorded by pulumi-storage-user 0.1.x: the next pulumi up rewrites its state in the 0.2 shape ` +
    "(an update with no API call; the user and its credentials stay as they are)"
  );
}

/** read (pulumi refresh): a user from state written by 0.1.x gets its service recorded. */
export function serviceRecordedWarning(u: UserRef, connection: string, now: string): string {
  return `warning: StorageUser '${u.userName}' (id ${u.id}) had no recorded service (created by 0.1.x): recorded as ${now}, where ${connection} pointed at the last pulumi up`;
}

/** plugin remove: the user leaves the stack, not the service (the API has no delete call). */
export function leftStackWarning(u: UserRef, failed: boolean): string {
  const who = `'${u.userName}'`;
  const where = serviceOf(u);
  const message = !failed
    ? `StorageUser ${who} (id ${u.id}, on ${where}) left the stack but still exists on the storage service, which has no delete call: delete user ${u.id} there if it is no longer needed`
    : !u.id.startsWith("unconfirmed-")
      ? `StorageUser ${who} (id ${u.id}, on ${where}) left the stack; its create answer was unusable, and user ${u.id} still exists on the storage service: delete it there`
      : `StorageUser ${who} (${u.id}, on ${where}) left the stack; its create did not finish cleanly, so a user ${who} may exist on the storage service: check and delete it there`;
  return `warning: ${message}`;
}

/** One ledger entry as messages name it. */
export const describeForgotten = (
  f: Pick<ForgottenUser, "id" | "userName" | "resourceName"> & Partial<ForgottenUser>,
): string =>
  `${f.id} '${f.userName}' on ${f.service ?? "its service (not recorded)"} (resource '${f.resourceName}'${f.why ? `, ${f.why} ${f.at}` : ""}${f.onService === "may exist" ? ", may exist" : ""})`;

/** ledger update: users left the stack since the last update. */
export function ledgerGrewWarning(added: ForgottenUser[], total: number): string {
  return (
    `warning: StorageUserLedger: ${added.length} storage user(s) left the stack but not the service, which has no delete call: ` +
    `${added.map(describeForgotten).join("; ")}. ${total} in the ledger now (\`pulumi stack output forgotten\`): ` +
    "delete them on the service, then list their ids in the ledger's cleanedUp"
  );
}

/** ledger delete: the record ends with it, so all of it is printed. `tracked` is already described. */
export function ledgerDeletedWarning(id: string, forgotten: ForgottenUser[], tracked: string[]): string {
  return (
    `warning: StorageUserLedger ${id} is deleted and its record with it. ` +
    `Forgotten users still on the storage service (${forgotten.length}): ${forgotten.map(describeForgotten).join("; ") || "none"}. ` +
    `Users it tracked, which stay on the service too if they leave the stack now (${tracked.length}): ${tracked.join("; ") || "none"}`
  );
}

/** The resource's URN quoted for a shell, or a placeholder and where to find it. */
export function urnArg(urn: unknown): { arg: string; from: string } {
  return typeof urn === "string" && urn.startsWith("urn:pulumi:")
    ? { arg: `'${urn}'`, from: "" }
    : { arg: "<urn>", from: " (urn from `pulumi stack --show-urns`)" };
}
