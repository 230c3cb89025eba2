// The package's entry: the program-side surface. The plugin side (undici, the HTTP client) is
// deliberately not re-exported: programs never need it, and the plugin loads it through the
// frozen entry modules ./runtime and ./ledger-runtime.
export { StorageUser, StorageUserArgs } from "./program/storage-user";
export { defaults } from "./defaults";
export { StorageUserError, InvalidInputError, ConfigMissingError, ConfigInvalidError, ConfigNotSecretError, UnsupportedOptionError } from "./errors";
export { UnauthorizedError, EndpointNotFoundError, NameTakenError, RejectedError, RedirectRefusedError, UnreachableError } from "./errors";
export { RetriesExhaustedError, RecordedFailureError, ImportUnsupportedError, redact } from "./errors";
export { replaceWarning, serviceMovedWarning, connectionChangedWarning, serviceReaddressedWarning, serviceRecordedWarning } from "./errors";
export type { StorageUserErrorCode, UserRef } from "./errors";
export type { Account, CreatedUser, Credentials, FtpConnection, S3Connection, Secrets, StorageUserOutputs, SwiftConnection, Task } from "./wire";
export { envOf, ftpUrlOf } from "./program/app-config";
export { StorageUserLedger, StorageUserLedgerArgs, LedgerEntry } from "./program/ledger";
/** For programs that read StorageUser outputs through a StackReference without a StorageUser: see README "Debug output". */
export { redactResponseDumps } from "./program/debug-redaction";
export type { ForgottenUser, TrackedUser } from "./plugin/ledger-provider";
