/**
 * Frozen plugin entry of StorageUser. Its exports object *is* the provider that state refers to
 * as `require("pulumi-storage-user/dist/provider/runtime.js")` (program/serializable.ts): this
 * path and these exported names are a contract with every `__provider` in users' state files.
 * Keep it thin; the logic lives in plugin/user-provider.ts.
 */
import { Settings } from "./plugin/settings";
import { userProvider } from "./plugin/user-provider";

export const { configure, check, diff, create, update, read, remove } = userProvider(new Settings());
export { remove as delete };
export { toOutputs } from "./state";
export type { StorageUserOutputs } from "./state";
