// The smallest dynamic resource that proves the chain engine -> plugin -> HTTP -> state.
// Settings are read inside create, in the plugin process, so nothing is captured in state.
import * as pulumi from "@pulumi/pulumi";

const provider: pulumi.dynamic.ResourceProvider = {
  async create(inputs) {
    const res = await fetch(`${process.env.STORAGE_API_URL}/storage/users`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Authorization: process.env.STORAGE_ACCESS_TOKEN ?? "" },
      body: JSON.stringify({ UserName: inputs.userName, PersistPassword: 0 }),
    });
    if (!res.ok) throw new Error(`create answered HTTP ${res.status}`);
    const user = await res.json();
    return {
      id: String(user.Id),
      outs: { userName: inputs.userName, userId: user.Id, state: user.State, taskType: user.Tasks[0].Type },
    };
  },
};

class PlainUser extends pulumi.dynamic.Resource {
  declare readonly userId: pulumi.Output<number>;
  declare readonly state: pulumi.Output<string>;
  declare readonly taskType: pulumi.Output<string>;
  constructor(name: string, userName: string) {
    super(provider, name, { userName, userId: undefined, state: undefined, taskType: undefined });
  }
}

const user = new PlainUser("plain", new pulumi.Config().require("userName"));
export const userId = user.userId;
export const state = user.state;
export const taskType = user.taskType;
