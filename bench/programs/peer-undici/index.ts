// Peer (a): what a user writes instead of pulumi-storage-user, following the Pulumi docs'
// dynamic provider pattern: a provider object literal, an HTTP client imported at module level
// and captured by the closure, the API address and token passed as inputs (the docs' advice,
// since a provider cannot capture Outputs), the token as a secret input. It creates the same
// user with the same POST and returns the same credentials; it does not set
// additionalSecretOutputs, as the docs' examples don't.
import * as pulumi from "@pulumi/pulumi";
import { request } from "undici";

const config = new pulumi.Config();
const count = config.requireNumber("count");
const prefix = config.require("prefix");
const baseUrl = config.require("baseUrl");
const accessToken = config.requireSecret("accessToken");

interface StorageUserInputs {
  baseUrl: string;
  accessToken: string;
  userName: string;
}

const storageUserProvider: pulumi.dynamic.ResourceProvider = {
  async create(inputs: StorageUserInputs) {
    const res = await request(`${inputs.baseUrl}/storage/users`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: inputs.accessToken },
      body: JSON.stringify({ UserName: inputs.userName, PersistPassword: 0 }),
    });
    if (res.statusCode !== 200) throw new Error(`POST /storage/users answered ${res.statusCode}: ${await res.body.text()}`);
    const user: any = await res.body.json();
    return {
      id: String(user.Id),
      outs: {
        userName: inputs.userName,
        userId: user.Id,
        name: user.Name,
        password: user.Password,
        state: user.State,
        swift: user.SwiftApiConnection,
        s3: user.S3Connection,
        ftp: user.FtpConnection,
        tasks: user.Tasks,
      },
    };
  },
};

class StorageUser extends pulumi.dynamic.Resource {
  declare readonly userId: pulumi.Output<number>;
  declare readonly password: pulumi.Output<string>;
  constructor(name: string, args: { baseUrl: pulumi.Input<string>; accessToken: pulumi.Input<string>; userName: pulumi.Input<string> }, opts?: pulumi.CustomResourceOptions) {
    super(storageUserProvider, name, { ...args, userId: undefined, name: undefined, password: undefined, state: undefined, swift: undefined, s3: undefined, ftp: undefined, tasks: undefined }, opts);
  }
}

for (let i = 0; i < count; i++) {
  new StorageUser(`u${i}`, { baseUrl, accessToken, userName: `${prefix}-${i}` });
}
