// `count` StorageUsers named `<prefix>-<i>` (resource name and userName alike), for the fault,
// cancellation and load tests.
//   users:prefix         name prefix (required)
//   users:count          how many (default 1)
//   users:createTimeout  customTimeouts.create, e.g. "3s" (optional)
import * as pulumi from "@pulumi/pulumi";
import { StorageUser } from "pulumi-storage-user";

const config = new pulumi.Config();
const prefix = config.require("prefix");
const count = config.getNumber("count") ?? 1;
const createTimeout = config.get("createTimeout");

const users = Array.from(
  { length: count },
  (_, i) =>
    new StorageUser(
      `${prefix}-${i}`,
      { userName: `${prefix}-${i}` },
      createTimeout ? { customTimeouts: { create: createTimeout } } : undefined,
    ),
);

export const userIds = users.map((u) => u.userId);
