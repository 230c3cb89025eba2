// The engine floor: the same stack shape as ../storage-users (same count, same names, same
// inputs, dynamic resources through the same plugin) with a provider that does no work but
// wait the API's injected latency (config latencyMs). What is left is the engine's, the
// language host's and the dynamic-provider plugin's own cost per resource.
import * as pulumi from "@pulumi/pulumi";

const config = new pulumi.Config();
const count = config.requireNumber("count");
const prefix = config.require("prefix");
const latencyMs = config.getNumber("latencyMs") ?? 0;

const noop: pulumi.dynamic.ResourceProvider = {
  async create(inputs) {
    await new Promise((resolve) => setTimeout(resolve, latencyMs));
    return { id: inputs.userName, outs: inputs };
  },
};

class NoopUser extends pulumi.dynamic.Resource {
  constructor(name: string, userName: string) {
    super(noop, name, { userName, persistPassword: false }, undefined, "bench", "NoopUser");
  }
}

for (let i = 0; i < count; i++) {
  new NoopUser(`u${i}`, `${prefix}-${i}`);
}
