// The StorageUserLedger resource as programs construct it, and what it records (docs/ledger.md).
import * as pulumi from "@pulumi/pulumi";
import { StorageUserError } from "./messages";
import { nameFromUrn } from "./identity";
import type { StorageUser } from "./storage-user";
import type { ForgottenUser, TrackedUser } from "./model";
import { assertConfig, programStacks, urnOf } from "./program";
import { serializableProvider } from "./serializable";

/** A user given by hand instead of as a StorageUser (e.g. one created inside a component). */
export interface LedgerEntry {
  /** The StorageUser's Pulumi resource name: the ledger's key. */
  name: string;
  /** The resource id: the service's user Id. */
  id: pulumi.Input<string>;
  /** The user's login, named in the ledger's warnings. */
  userName: pulumi.Input<string>;
  /** The base URL of the service the user lives on, named in the ledger's warnings. */
  service?: pulumi.Input<string | undefined>;
}

/** The arguments of a {@link StorageUserLedger}. */
export interface StorageUserLedgerArgs {
  /** Every StorageUser of the stack; one that leaves this list (or gets a new id) is recorded as forgotten. */
  users: Array<StorageUser | LedgerEntry>;
  /** Ids you have deleted on the service (or found absent): they leave the `forgotten` list. */
  cleanedUp?: pulumi.Input<pulumi.Input<string>[]>;
}

/** The stack's record of the storage users it let go of (replaced or removed), which stay on the service (docs/ledger.md). */
export class StorageUserLedger extends pulumi.dynamic.Resource {
  /** Users in the stack at the last update, by resource name. */
  public readonly current!: pulumi.Output<Record<string, TrackedUser>>;
  /** Users let go of and not yet listed in cleanedUp, oldest first. */
  public readonly forgotten!: pulumi.Output<ForgottenUser[]>;

  constructor(name: string, args: StorageUserLedgerArgs, opts?: pulumi.CustomResourceOptions) {
    if (!args || !Array.isArray(args.users))
      throw new StorageUserError("INVALID_INPUT", { problem: "ledgerWithoutUsers", name });
    assertConfig();
    const entry = (u: StorageUser | LedgerEntry) =>
      pulumi.CustomResource.isInstance(u)
        ? { name: u.urn.apply(nameFromUrn), id: u.id, userName: u.userName, service: u.baseUrl }
        : u;
    programStacks();
    super(
      serializableProvider("ledger-runtime"),
      name,
      {
        users: args.users.map(entry),
        cleanedUp: args.cleanedUp ?? [],
        __urn: urnOf(name, "ledger", opts?.parent),
        current: undefined,
        forgotten: undefined,
      },
      opts,
      "storage",
      "StorageUserLedger",
    );
  }
}
