// A user's outputs from its state, for the class and the plugin's Construct; the SDK's root (it loads TypeScript) unused.
import { all, Output, secret } from "@pulumi/pulumi/output";
import { deriveOutput, OutputName, outputs, sourcesOf } from "./model";

/** What a user's state holds, as Outputs of its resource. */
export type Stored = { id: Output<string>; account: Output<unknown>; secrets: Output<unknown> };
/** An output of a user, from its state; those from the credentials are secret in the program itself (under setMocks too). */
export function derive(u: Stored, name: OutputName): Output<unknown> {
  const { from } = outputs[name];
  if (from === "id") return u.id.apply((id) => deriveOutput(name, { id }));
  if (from === "account") return u.account.apply((account) => deriveOutput(name, sourcesOf({ account })));
  const both = all([u.account, u.secrets]);
  return secret(both.apply(([account, secrets]) => deriveOutput(name, sourcesOf({ account, secrets }))));
}
