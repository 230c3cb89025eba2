// "old" registers the same resource type the way an earlier release did (a forwarding object,
// ~2 KB of __provider); "new" uses today's StorageUser. Same URN, so switching is an upgrade.
import * as pulumi from "@pulumi/pulumi";
import { StorageUser, StorageUserLedger } from "pulumi-storage-user";

const config = new pulumi.Config();
const userName = config.require("userName");

const olderProvider: pulumi.dynamic.ResourceProvider = {
  async configure(req) {
    require("pulumi-storage-user/dist/provider/runtime").configure(req);
  },
  check: (olds, news) => require("pulumi-storage-user/dist/provider/runtime").check(olds, news),
  diff: (id, olds, news) => require("pulumi-storage-user/dist/provider/runtime").diff(id, olds, news),
  create: (inputs) => require("pulumi-storage-user/dist/provider/runtime").create(inputs),
  update: (id, olds, news) => require("pulumi-storage-user/dist/provider/runtime").update(id, olds, news),
  delete: (id, props) => require("pulumi-storage-user/dist/provider/runtime").remove(id, props),
};

class OlderStorageUser extends pulumi.dynamic.Resource {
  declare readonly userId: pulumi.Output<number>;
  constructor(name: string) {
    super(
      olderProvider,
      name,
      { userName, persistPassword: undefined, userId: undefined },
      {
        additionalSecretOutputs: ["name", "password", "swift", "s3", "ftp", "env", "ftpUrl"],
      },
      "storage",
      "StorageUser",
    );
  }
}

const user = config.require("variant") === "old" ? new OlderStorageUser("app") : new StorageUser("app", { userName });
export const userId = user.userId;

// `upgrade:ledger` adds the ledger, as the 0.2.0 fixture has it (state-0.2.0.json); off, the stack
// is the one the 0.1.0 fixture recorded.
if (config.getBoolean("ledger") && user instanceof StorageUser) {
  const ledger = new StorageUserLedger("ledger", { users: [user] });
  // Assigned, not `export const`: the 0.1.0 stack has no such outputs, not even undefined ones.
  Object.assign(exports, { forgotten: ledger.forgotten, s3Endpoint: user.s3Endpoint });
}
