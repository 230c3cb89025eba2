// Bench program: `count` StorageUsers named `${prefix}-${i}`, exactly as an infra repo would
// write them (the package resolved from node_modules). Exports nothing, so the stack shape is
// the resources alone and matches the floor program (../noop-users) one for one.
import * as pulumi from "@pulumi/pulumi";
import { StorageUser } from "pulumi-storage-user";

const config = new pulumi.Config();
const count = config.requireNumber("count");
const prefix = config.require("prefix");
for (let i = 0; i < count; i++) {
  new StorageUser(`u${i}`, { userName: `${prefix}-${i}` });
}
