// The upgrade tests' program (upgrade.test.ts). "old" registers the same resource type the way an
// earlier release did (a forwarding object, ~2 KB of __provider); "new" uses today's StorageUser.
// Same URN, so switching is an upgrade. `upgrade:ledger` adds the ledger, as state-0.2.0.json has it.
import * as pulumi from "@pulumi/pulumi";
import { StorageUser, StorageUserLedger } from "pulumi-storage-user";

const config = new pulumi.Config();
const userName = config.require("userName");
const runtime = () => require("pulumi-storage-user/dist/provider/runtime");
const olderProvider: pulumi.dynamic.ResourceProvider = {
  configure: async (req) => runtime().configure(req),
  check: (olds, news) => runtime().check(olds, news),
  diff: (id, olds, news) => runtime().diff(id, olds, news),
  create: (inputs) => runtime().create(inputs),
  update: (id, olds, news) => runtime().update(id, olds, news),
  delete: (id, props) => runtime().remove(id, props),
};

class OlderStorageUser extends pulumi.dynamic.Resource {
  declare readonly userId: pulumi.Output<number>;
  constructor(name: string) {
    const additionalSecretOutputs = ["name", "password", "swift", "s3", "ftp", "env", "ftpUrl"];
    const inputs = { userName, persistPassword: undefined, userId: undefined };
    super(olderProvider, name, inputs, { additionalSecretOutputs }, "storage", "StorageUser");
  }
}

const user = config.require("variant") === "old" ? new OlderStorageUser("app") : new StorageUser("app", { userName });
export const userId = user.userId;
if (config.getBoolean("ledger") && user instanceof StorageUser) {
  const ledger = new StorageUserLedger("ledger", { users: [user] });
  // Assigned, not `export const`: the 0.1.0 stack has no such outputs, not even undefined ones.
  Object.assign(exports, { forgotten: ledger.forgotten, s3Endpoint: user.s3Endpoint });
}
