// Raw undici: the same POST sent by the plainest dynamic provider (./raw-provider), storing the
// same outputs as StorageUser with the same one secret and a `__provider` of the same one-line
// kind. Against ../storage-users it prices what the package adds, in the plugin and the program,
// over the bare request.
import * as pulumi from "@pulumi/pulumi";
const provider: pulumi.dynamic.ResourceProvider = require("psu-bench-raw");

const config = new pulumi.Config();
const count = config.requireNumber("count");
const prefix = config.require("prefix");

class RawUser extends pulumi.dynamic.Resource {
  constructor(name: string, userName: string) {
    super(
      provider,
      name,
      { userName, persistPassword: false, account: undefined, secrets: undefined },
      { additionalSecretOutputs: ["secrets"] },
      "bench",
      "RawUser",
    );
  }
}

for (let i = 0; i < count; i++) new RawUser(`u${i}`, `${prefix}-${i}`);
