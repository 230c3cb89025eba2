// The package's entry: what programs and services import, and nothing else. Every name here is
// a promise kept across releases: test/public-surface.json pins them, test/api-surface.test.ts
// holds the build to it and test/reference.test.ts the generated reference (`npm run docs`).
// The plugin side (undici, the HTTP client, the warning texts) is not exported: the plugin
// loads it through the frozen entry modules ./runtime and ./ledger-runtime.
export { StorageUser, StorageUserArgs } from "./program/storage-user";
export type { Credentials, FtpConnection, S3Connection, SwiftConnection, Task } from "./wire";
export { envOf, ftpUrlOf } from "./program/app-config";
export { StorageUserLedger, StorageUserLedgerArgs, LedgerEntry } from "./program/ledger";
export type { ForgottenUser, TrackedUser } from "./ledger-types";
export { defaults } from "./defaults";
export { StorageUserError, errorCodes } from "./errors";
export type { StorageUserErrorCode } from "./errors";
export { warningCodes } from "./warnings";
export type { StorageUserWarningCode } from "./warnings";
/** For services that drive Pulumi through the Automation API: see docs/automation-api.md. */
export { checkStackConfig, checkStorageConfig, storageUserDiagnostics, storageUserFailures } from "./automation";
export type { ConfigMapLike, EngineEventLike, StackLike, StorageUserDiagnostic, StorageUserFailure, StorageUserWarning } from "./automation";
/** For programs that read StorageUser outputs through a StackReference without a StorageUser: see docs/failure-modes.md "Debug output". */
export { redactResponseDumps } from "./program/debug-redaction";
/** After a force-stopped `up`: the StorageUser creates left pending, users that may exist unrecorded (docs/failure-modes.md); also the bin `pulumi-storage-user pending`. */
export { pendingStorageUsers, formatPendingStorageUser } from "./pending";
export type { PendingStatus, PendingStorageUser, DeploymentLike } from "./pending";
