// A user's outputs from its state, for the class and the plugin's Construct; the SDK's root (it loads TypeScript) unused.
import { all, Output, secret } from "@pulumi/pulumi/output";
import { deriveOutput, OutputName, outputNames, outputs, sourcesOf } from "./model";

/** What a user's state holds, as Outputs of its resource. */
export type Stored = { id: Output<string>; account: Output<unknown>; secrets: Output<unknown> };
/**
 * An output of a user, from its state; those from the credentials are secret in the program itself (under setMocks
 * too), and so is one that additionalSecretOutputs names (`secretToo`).
 */
export function derive(u: Stored, name: OutputName, secretToo = false): Output<unknown> {
  const { from } = outputs[name];
  if (from === "credentials") {
    const both = all([u.account, u.secrets]);
    return secret(both.apply(([account, secrets]) => deriveOutput(name, sourcesOf({ account, secrets }))));
  }
  const value = (u[from] as Output<unknown>).apply((v) => deriveOutput(name, sourcesOf({ [from]: v })));
  return secretToo ? secret(value) : value;
}

/**
 * A StorageUser's additionalSecretOutputs as its custom resource takes them: `secrets` always; an output made from
 * `account` makes `account` secret in state (an output made from the id cannot be: the id stays plain); any other
 * name (userName, persistPassword, connection, or one the engine refuses) as given. `derived`: the outputs the
 * program must see secret, which the engine does not know of.
 */
export function secretOutputs(names: readonly string[] | undefined): { state: string[]; derived: Set<OutputName> } {
  const state = new Set(["secrets"]);
  const derived = new Set<OutputName>();
  for (const name of names ?? []) {
    if (!(outputNames as string[]).includes(name)) state.add(name);
    else {
      derived.add(name as OutputName);
      if (outputs[name as OutputName].from === "account") state.add("account");
    }
  }
  return { state: [...state], derived };
}
