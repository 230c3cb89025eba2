// Who a user is, as state, messages and tools name it: type tokens, URNs, the unconfirmed id, the recorded service.
import { Account, parseJson } from "./model";

/** The type tokens: TypeScript registers dynamic resources of module `storage`; YAML, Go and Python the plugin's. */
export const TYPES = {
  user: "pulumi-nodejs:dynamic/storage:StorageUser",
  ledger: "pulumi-nodejs:dynamic/storage:StorageUserLedger",
  pluginUser: "storage-user:index:StorageUser",
} as const;
export const isUserType = (type: unknown) => type === TYPES.user || type === TYPES.pluginUser;

/** The resource's name in `urn:pulumi:stack::project::type::name` (the name may contain "::"). */
export const nameFromUrn = (urn: string) => urn.split("::").slice(3).join("::");
/** The resource's own type in a URN, its parents' types left out. */
export const typeFromUrn = (urn: string) => urn.split("::")[2]?.split("$").pop();

/** The id of a create that got no verdict: no user is confirmed, one may exist. */
export const unconfirmedId = () => `unconfirmed-${Date.now().toString(36)}`;
export const isUnconfirmed = (id: string) => id.startsWith("unconfirmed-");

/** The service a user was created on: in `account` from 0.2.0; at the top in 0.1.x state and recorded failures. */
export const recordedService = (p: Record<string, unknown>) =>
  [parseJson<Account>(p.account)?.baseUrl ?? p.baseUrl].find((u): u is string => typeof u === "string");
