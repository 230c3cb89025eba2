// The package's entry: the program-side surface. The plugin side (undici, the HTTP client) is
// deliberately not re-exported: programs never need it, and the plugin loads it through the
// frozen entry modules ./runtime and ./ledger-runtime.
export { StorageUser, StorageUserArgs } from "./program/storage-user";
export { defaults } from "./defaults";
export { StorageUserError, InvalidInputError, ConfigMissingError, ConfigInvalidError, ConfigNotSecretError, UnsupportedOptionError } from "./errors";
export { UnauthorizedError, EndpointNotFoundError, NameTakenError, RejectedError, RedirectRefusedError, UnreachableError } from "./errors";
export { RetriesExhaustedError, RecordedFailureError, ImportUnsupportedError, PluginCannotStartError, redact } from "./errors";
export { errorCodes, warningCodes } from "./errors";
export { replaceWarning, serviceMovedWarning, connectionChangedWarning, serviceReaddressedWarning, serviceRecordedWarning } from "./errors";
export type { StorageUserErrorCode, StorageUserWarningCode, UserRef } from "./errors";
/** For services that drive Pulumi through the Automation API: see README "Automation API". */
export { checkStackConfig, storageUserDiagnostics, storageUserFailures } from "./automation";
export type { EngineEventLike, StackLike, StorageUserDiagnostic, StorageUserFailure, StorageUserWarning } from "./automation";
export type { Account, CreatedUser, Credentials, FtpConnection, S3Connection, Secrets, StorageUserOutputs, SwiftConnection, Task } from "./wire";
export { envOf, ftpUrlOf } from "./program/app-config";
export { StorageUserLedger, StorageUserLedgerArgs, LedgerEntry } from "./program/ledger";
/** For programs that read StorageUser outputs through a StackReference without a StorageUser: see README "Debug output". */
export { redactResponseDumps } from "./program/debug-redaction";
export type { ForgottenUser, TrackedUser } from "./plugin/ledger-provider";
