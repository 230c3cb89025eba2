// Experiment program of bench/shapes.ts: the engine floor (../noop-users) storing what config
// `shape` says, with no HTTP, so that what storing StorageUser's outputs costs is priced apart
// from the package (the provider, ./shaped-provider, stores StorageUser's exact shape and sizes).
//   floor: 2 keys, stores its inputs | keys: 4 keys, stores its inputs
//   data: + account and secrets, plain | secret: + secrets marked secret (StorageUser's state)
//   json, secretjson: as data and secret, with account and secrets stored as JSON strings
import * as pulumi from "@pulumi/pulumi";
const provider: pulumi.dynamic.ResourceProvider = require("psu-bench-shaped");

const config = new pulumi.Config();
const count = config.requireNumber("count");
const prefix = config.require("prefix");
const shape = config.require("shape");

class ShapedUser extends pulumi.dynamic.Resource {
  constructor(name: string, userName: string) {
    const props =
      shape === "floor"
        ? { userName, persistPassword: false }
        : { userName, persistPassword: false, account: undefined, secrets: undefined };
    super(
      provider,
      name,
      props,
      shape.startsWith("secret") ? { additionalSecretOutputs: ["secrets"] } : undefined,
      "bench",
      "ShapedUser",
    );
  }
}

for (let i = 0; i < count; i++) new ShapedUser(`u${i}`, `${prefix}-${i}`);
