/**
 * What a StorageUserLedger records (docs/ledger.md), shared by the program side (its outputs'
 * types), the plugin side (which computes them) and the warnings that describe them.
 */
/** One StorageUser as the program hands it over. */
export interface LedgerUser {
  /** Pulumi resource name of the StorageUser. */
  name: string;
  /** Resource id: the service's user Id, or `unconfirmed-…` for a create that never confirmed. */
  id: string;
  userName: string;
  /** The base URL of the service the user lives on (its `baseUrl` output); absent for users created by 0.1.x. */
  service?: string;
}

export type TrackedUser = Pick<LedgerUser, "id" | "userName" | "service">;

export interface ForgottenUser extends TrackedUser {
  resourceName: string;
  /** When the ledger noticed (ISO 8601, UTC). */
  at: string;
  why: "replaced" | "removed";
  /** "may exist": the create never confirmed a user, so the service may or may not have one. */
  onService: "exists" | "may exist";
}

export interface LedgerOutputs {
  /** Users in the stack at the last update, by resource name. */
  current: Record<string, TrackedUser>;
  /** Users the stack has let go of that are still (or may be) on the service, oldest first. */
  forgotten: ForgottenUser[];
}
