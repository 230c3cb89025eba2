/**
 * What a StorageUserLedger records (docs/ledger.md), shared by the program side (its outputs'
 * types), the plugin side (which computes them) and the warnings that describe them.
 */
/**
 * A user as the ledger records it: an element of its `current` output, and the base of a
 * {@link ForgottenUser}.
 */
// A type alias of an object type, not an interface: it then stays assignable to index-signature
// types such as Record<string, unknown>.
export type TrackedUser = {
  /** Resource id: the service's user Id, or `unconfirmed-…` for a create that never confirmed. */
  id: string;
  /** The requested login (the StorageUser's `userName` output). */
  userName: string;
  /** The base URL of the service the user lives on (its `baseUrl` output); absent for users created by 0.1.x. */
  service?: string;
};

/** One StorageUser as the program hands it over. */
export interface LedgerUser extends TrackedUser {
  /** Pulumi resource name of the StorageUser. */
  name: string;
}

/** A user the stack has let go of that stays on the service: an element of the ledger's `forgotten` output. */
export interface ForgottenUser extends TrackedUser {
  /** The Pulumi resource name the user had in the stack. */
  resourceName: string;
  /** When the ledger noticed (ISO 8601, UTC). */
  at: string;
  /** `replaced`: a replace created a new user; `removed`: the resource left the program, or the stack was destroyed. */
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
