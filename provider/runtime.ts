/**
 * StorageUser's provider, run by the dynamic-provider plugin. Frozen entry: state refers to it as
 * `require("pulumi-storage-user/dist/provider/runtime.js")`, so this path and these exported methods
 * are a contract with every `__provider` in users' state files.
 */
import { Settings } from "./config";
import { lifecycle } from "./plugin/lifecycle";

export const { configure, check, diff, create, update, read, remove } = lifecycle(new Settings());
export { remove as delete };
