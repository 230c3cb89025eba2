// `count` StorageUsers without a userName: the provider generates each name (the 0.3.0
// default), so only the state and the service know them. For test/force-stop.test.ts.
//   auto:count  how many (default 8)
import * as pulumi from "@pulumi/pulumi";
import { StorageUser } from "pulumi-storage-user";

const count = new pulumi.Config().getNumber("count") ?? 8;
const users = Array.from({ length: count }, (_, i) => new StorageUser(`auto-${i}`, {}));

export const userNames = users.map((u) => u.userName);
