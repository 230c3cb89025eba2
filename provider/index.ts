// The package's entry: what a Pulumi program imports, and nothing else. Every name here is a
// promise kept across releases: test/support/public-surface.json pins them, test/unit/api-surface.test.ts
// holds the build to it and test/e2e/reference.test.ts the generated reference (`npm run docs`).
// Tools for services and operators are `pulumi-storage-user/automation` (./automation), mocks
// `pulumi-storage-user/testing`. The plugin side (undici, the HTTP client, the warning texts) is
// not exported: the plugin loads it through the frozen entry modules ./runtime and ./ledger-runtime.
export { StorageUser, StorageUserArgs } from "./program/storage-user";
export type { Credentials, FtpConnection, S3Connection, SwiftConnection, Task } from "./wire";
export { envOf, ftpUrlOf } from "./program/app-config";
export { StorageUserLedger, StorageUserLedgerArgs, LedgerEntry } from "./program/ledger";
export type { ForgottenUser, TrackedUser } from "./ledger-types";
export { StorageUserError, errorCodes } from "./errors";
export type { StorageUserErrorCode } from "./errors";
export { warningCodes } from "./warnings";
export type { StorageUserWarningCode } from "./warnings";
/** For programs that read StorageUser outputs through a StackReference without a StorageUser: see docs/failure-modes.md "Debug output". */
export { redactResponseDumps } from "./program/debug-redaction";
