/** The StorageUserLedger resource as programs construct it (docs/ledger.md). */
import * as pulumi from "@pulumi/pulumi";
import { StorageUserError } from "../errors";
import { nameFromUrn } from "../inputs";
import type { ForgottenUser, TrackedUser } from "../ledger-types";
import type { StorageUser } from "./storage-user";
import { serializableProvider } from "./serializable";
import { urnOf } from "./urn";
import { assertPluginCanStart } from "./plugin-dir";
import { assertTokensSecret } from "./stack-config";

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

function entryOf(u: StorageUser | LedgerEntry): { [K in keyof LedgerEntry]: pulumi.Input<LedgerEntry[K]> } {
  if (!pulumi.CustomResource.isInstance(u)) return u;
  const user = u;
  return { name: user.urn.apply(nameFromUrn), id: user.id, userName: user.userName, service: user.baseUrl };
}

/**
 * The stack's record of storage users it has let go of (replaced or removed) which, the API
 * having no delete call, remain on the service. See docs/ledger.md.
 */
export class StorageUserLedger extends pulumi.dynamic.Resource {
  /** Users in the stack at the last update, by resource name. */
  public readonly current!: pulumi.Output<Record<string, TrackedUser>>;
  /** Users let go of and not yet listed in cleanedUp, oldest first. */
  public readonly forgotten!: pulumi.Output<ForgottenUser[]>;

  constructor(name: string, args: StorageUserLedgerArgs, opts?: pulumi.CustomResourceOptions) {
    if (!args || !Array.isArray(args.users))
      throw new StorageUserError("INVALID_INPUT", { problem: "ledgerWithoutUsers", name });
    assertTokensSecret();
    assertPluginCanStart();
    super(
      serializableProvider("ledger-runtime"),
      name,
      // __urn: the plugin attributes the ledger's warnings to it (plugin/engine-log.ts).
      {
        users: args.users.map(entryOf),
        cleanedUp: args.cleanedUp ?? [],
        __urn: urnOf(name, "StorageUserLedger", opts?.parent),
        current: undefined,
        forgotten: undefined,
      },
      opts,
      "storage",
      "StorageUserLedger",
    );
  }
}
