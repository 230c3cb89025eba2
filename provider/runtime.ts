/**
 * Frozen plugin entry of StorageUser. Its exports object *is* the provider that state refers to
 * as `require("pulumi-storage-user/dist/provider/runtime.js")` (program/serializable.ts): this
 * path and these exported names are a contract with every `__provider` in users' state files.
 * Keep it thin; the logic lives in plugin/user-provider.ts.
 */
export { configure, check, diff, create, update, read, remove, remove as delete } from "./plugin/user-provider";
export { toOutputs } from "./state";
export type { StorageUserOutputs } from "./state";
