// `count` StorageUsers `<prefix>-<i>`, userName the same unless auto-named, for the fault,
// interruption and load tests. Config (users:): prefix (required), count (default 1),
// createTimeout (customTimeouts.create, e.g. "3s"), auto ("true": no userName, generated names),
// rotateAfter (each user's rotateAfter, e.g. "90d"; the stack then exports `credentials` as examples/app-config reads them).
import * as pulumi from "@pulumi/pulumi";
import { StorageUser } from "pulumi-storage-user";

const config = new pulumi.Config();
const prefix = config.require("prefix");
const createTimeout = config.get("createTimeout");
const rotateAfter = config.get("rotateAfter");
const users = Array.from(
  { length: config.getNumber("count") ?? 1 },
  (_, i) =>
    new StorageUser(
      `${prefix}-${i}`,
      { ...(config.getBoolean("auto") ? {} : { userName: `${prefix}-${i}` }), ...(rotateAfter ? { rotateAfter } : {}) },
      createTimeout ? { customTimeouts: { create: createTimeout } } : undefined,
    ),
);
export const userIds = users.map((u) => u.userId);
// With rotateAfter, what examples/app-config reads: each user's env by resource name (secret).
if (rotateAfter)
  module.exports.credentials = pulumi.secret(
    Object.fromEntries(users.map((u, i) => [`${prefix}-${i}`, { env: u.env }])),
  );
