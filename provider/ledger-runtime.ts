/**
 * Frozen plugin entry of StorageUserLedger, which state refers to as
 * `require("pulumi-storage-user/dist/provider/ledger-runtime")` (program/ledger.ts): this path
 * and these exported names are a contract with every `__provider` in users' state files.
 * Keep it thin; the logic lives in plugin/ledger-provider.ts.
 */
export {
  check,
  diff,
  create,
  update,
  remove,
  remove as delete,
  reconcile,
  onServiceOf,
} from "./plugin/ledger-provider";
export type { ForgottenUser, LedgerOutputs, LedgerUser, TrackedUser } from "./ledger-types";
export { describeForgotten as describe } from "./warnings";
