// StorageUser's provider, run by the dynamic-provider plugin. Frozen entry: state refers to it as
// `require("pulumi-storage-user/dist/provider/runtime.js")`: this path and its methods are a contract.
import { Settings } from "./config";
import { lifecycle } from "./core/lifecycle";

export const { configure, check, diff, create, update, read, remove } = lifecycle(new Settings());
export { remove as delete };
