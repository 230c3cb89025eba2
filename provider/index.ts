// The program-side surface. Runtime code (undici, the HTTP client) is deliberately not
// re-exported: programs never need it, and the plugin loads it through "./runtime".
export { StorageUser, StorageUserArgs } from "./resource";
export { defaults } from "./defaults";
export * from "./errors";
export type { CreatedUser, FtpConnection, S3Connection, SwiftConnection, Task } from "./response";
export type { StorageUserOutputs } from "./runtime";
export { Credentials, envOf, ftpUrlOf } from "./app-config";
export { StorageUserLedger, StorageUserLedgerArgs, LedgerEntry } from "./ledger";
/** For programs that read StorageUser outputs through a StackReference without a StorageUser: see README "Debug output". */
export { redactResponseDumps } from "./debug-redaction";
export type { ForgottenUser, TrackedUser } from "./ledger-runtime";
