// The package's root entry: what a Pulumi program imports, each name a promise kept across releases
// (surface/typescript/*.api.md). Services and operators: ./automation; mocks: ./testing.
export { StorageUser, StorageUserArgs } from "./storage-user";
export type { Credentials, FtpConnection, S3Connection, SwiftConnection, Task } from "./model";
export { envOf, ftpUrlOf } from "./model";
export { StorageUserLedger, StorageUserLedgerArgs, LedgerEntry } from "./ledger";
export type { ForgottenUser, TrackedUser } from "./model";
export { StorageUserError, errorCodes, warningCodes } from "./messages";
export type { StorageUserErrorCode, StorageUserWarningCode } from "./messages";
export { redactResponseDumps } from "./core/sdk-seam";
