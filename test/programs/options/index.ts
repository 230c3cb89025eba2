// StorageUsers described in stack config, for lifecycle.test.ts, connections.test.ts and secrets.test.ts.
//   options:users   JSON list of Spec (below), in order
//   options:ledger  "true": a StorageUserLedger over all of them (cleanedUp from options:cleanedUp)
import * as pulumi from "@pulumi/pulumi";
import { StorageUser, StorageUserLedger } from "pulumi-storage-user";

/**
 * One user: `args` (any JSON value, for the input rules) or the three arguments; its resource
 * options; and `route`, how it is made. "catch": a constructor's refusal is printed as `HOSTILE
 * <name> <message>` (or `HOSTILE <name> accepted`) and the program goes on, failing at the end;
 * "output": the same, every argument an Output (checked by the provider); "unknown": every argument
 * computed from the userId of `<name>-source` ("<id>" replaced by it), unknown at preview; "import"
 * and "get": adopting the existing user 1001. Left out: the constructor, uncaught.
 */
type Options =
  | "protect"
  | "retainOnDelete"
  | "ignoreChanges"
  | "replaceOnChanges"
  | "replacementTrigger"
  | "deleteBeforeReplace"
  | "additionalSecretOutputs"
  | "hideDiffs"
  | "customTimeouts";
type Spec = Pick<pulumi.CustomResourceOptions, Options> & {
  name: string;
  userName?: string;
  persistPassword?: boolean;
  connection?: string;
  args?: unknown;
  route?: "catch" | "output" | "unknown" | "import" | "get";
  parent?: "box"; // a child of the component `box`
  aliases?: Array<{ name?: string; parent?: "stack" }>; // "stack": it used to sit at the stack's root
  createTimeout?: string;
  /** Earlier users of the list, by name. */
  dependsOn?: string[];
  deletedWith?: string;
  replaceWith?: string[];
  /** Outputs of this user exported on their own, as `<name>_<output>` (options.test.ts reads which are secret). */
  exports?: string[];
};

const config = new pulumi.Config();
let box: pulumi.ComponentResource | undefined;
const users: StorageUser[] = [];
const byName = new Map<string, StorageUser>();
const thrown: string[] = [];
let source: StorageUser | undefined;
const mapArgs = (args: unknown, f: (v: unknown) => unknown) =>
  Object.fromEntries(Object.entries((args ?? {}) as object).map(([k, v]) => [k, f(v)])) as never;

for (const s of config.requireObject<Spec[]>("users")) {
  const given = { userName: s.userName, persistPassword: s.persistPassword, connection: s.connection };
  const args = "args" in s ? s.args : Object.fromEntries(Object.entries(given).filter(([, v]) => v !== undefined));
  // The spec's other keys are no resource options: the SDK reads only its own.
  const opts: pulumi.CustomResourceOptions = {
    ...s,
    parent: s.parent === "box" ? (box ??= new pulumi.ComponentResource("storage:test:Box", "box")) : undefined,
    aliases: s.aliases?.map((a) => ({ name: a.name, parent: a.parent && pulumi.rootStackResource })),
    customTimeouts: s.createTimeout ? { create: s.createTimeout } : s.customTimeouts,
    dependsOn: s.dependsOn?.map((n) => byName.get(n)!),
    deletedWith: s.deletedWith ? byName.get(s.deletedWith) : undefined,
    replaceWith: s.replaceWith?.map((n) => byName.get(n)!),
    import: s.route === "import" ? "1001" : undefined,
  };
  try {
    if (s.route === "get") StorageUser.get(s.name, "1001");
    else if (s.route === "output") users.push(new StorageUser(s.name, mapArgs(args, pulumi.output), opts));
    else if (s.route === "unknown") {
      const src = (source ??= new StorageUser(`${s.name}-source`, { userName: `${s.name}-source` }));
      users.push(src);
      const computed = (v: unknown) =>
        src.userId.apply((n) => (typeof v === "string" ? v.replace("<id>", String(n)) : v));
      users.push(new StorageUser(s.name, mapArgs(args, computed), opts));
    } else users.push(new StorageUser(s.name, args as never, opts));
    byName.set(s.name, users[users.length - 1]);
    for (const output of s.exports ?? [])
      module.exports[`${s.name}_${output}`] = (users[users.length - 1] as unknown as Record<string, unknown>)[output];
    if (s.route === "catch") console.log(`HOSTILE ${s.name} accepted`);
  } catch (err) {
    if (s.route !== "catch" && s.route !== "output") throw err;
    console.log(`HOSTILE ${s.name} ${(err as Error).message}`);
    thrown.push(s.name);
  }
}
if (thrown.length > 0) throw new Error(`${thrown.length} StorageUser constructor(s) threw: ${thrown.join(", ")}`);

if (config.get("ledger") === "true") {
  const ledger = new StorageUserLedger("ledger", { users, cleanedUp: config.getObject<string[]>("cleanedUp") ?? [] });
  module.exports.forgotten = ledger.forgotten;
}

/** Plain per user: where it lives and under which id. */
const row = (u: StorageUser) => pulumi.all([u.urn, u.id, u.userName, u.baseUrl, u.connection]);
module.exports.users = pulumi
  .all(users.map(row))
  .apply((rows) =>
    Object.fromEntries(
      rows.map(([urn, id, userName, baseUrl, connection]) => [
        urn.split("::").pop(),
        { id, userName, baseUrl: baseUrl ?? null, connection: connection ?? null },
      ]),
    ),
  );
