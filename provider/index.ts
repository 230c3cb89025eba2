// The program-side surface. Runtime code (undici, the HTTP client) is deliberately not
// re-exported: programs never need it, and the plugin loads it through "./runtime".
export { StorageUser, StorageUserArgs } from "./resource";
export { defaults } from "./defaults";
export * from "./errors";
export type { CreatedUser, FtpConnection, S3Connection, SwiftConnection, Task } from "./response";
export type { StorageUserOutputs } from "./runtime";
export { Credentials, envOf, ftpUrlOf } from "./app-config";
export { StorageUserLedger, StorageUserLedgerArgs, LedgerEntry } from "./ledger";
export type { ForgottenUser, TrackedUser } from "./ledger-runtime";
