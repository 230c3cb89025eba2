// StorageUsers described in stack config, for test/connections.test.ts, test/token-safety.test.ts
// test/resource-options.test.ts and test/rotation.test.ts. Config:
//   options:users   JSON list of UserSpec (below)
//   options:ledger  "true": a StorageUserLedger over all of them (cleanedUp from options:cleanedUp)
import * as pulumi from "@pulumi/pulumi";
import { StorageUser, StorageUserLedger } from "pulumi-storage-user";

interface UserSpec {
  name: string;
  /** Left out: auto-named (test/rotation.test.ts). */
  userName?: string;
  connection?: string;
  /** "box": the user is a child of the component `box`. */
  parent?: "box";
  protect?: boolean;
  retainOnDelete?: boolean;
  ignoreChanges?: string[];
  replaceOnChanges?: string[];
  /** { name } renames; { parent: "stack" } says the user used to sit at the stack's root. */
  aliases?: Array<{ name?: string; parent?: "stack" }>;
  createTimeout?: string;
  replacementTrigger?: string;
  deleteBeforeReplace?: boolean;
}

const config = new pulumi.Config();
const specs = config.requireObject<UserSpec[]>("users");
let box: pulumi.ComponentResource | undefined;
const boxed = () => (box ??= new pulumi.ComponentResource("storage:test:Box", "box"));

const users = specs.map(
  (s) =>
    new StorageUser(
      s.name,
      {
        ...(s.userName === undefined ? {} : { userName: s.userName }),
        ...(s.connection === undefined ? {} : { connection: s.connection }),
      },
      {
        parent: s.parent === "box" ? boxed() : undefined,
        protect: s.protect,
        retainOnDelete: s.retainOnDelete,
        ignoreChanges: s.ignoreChanges,
        replaceOnChanges: s.replaceOnChanges,
        aliases: s.aliases?.map((a) => ({
          ...(a.name ? { name: a.name } : {}),
          ...(a.parent === "stack" ? { parent: pulumi.rootStackResource } : {}),
        })),
        customTimeouts: s.createTimeout ? { create: s.createTimeout } : undefined,
        replacementTrigger: s.replacementTrigger,
        deleteBeforeReplace: s.deleteBeforeReplace,
      },
    ),
);

if (config.get("ledger") === "true") {
  const ledger = new StorageUserLedger("ledger", { users, cleanedUp: config.getObject<string[]>("cleanedUp") ?? [] });
  module.exports.forgotten = ledger.forgotten;
}

/** Plain per user: where it lives and under which id. */
module.exports.users = pulumi
  .all(users.map((u) => pulumi.all([u.urn, u.id, u.userName, u.baseUrl, u.connection])))
  .apply((rows) =>
    Object.fromEntries(
      rows.map(([urn, id, userName, baseUrl, connection]) => [
        urn.split("::").pop(),
        { id, userName, baseUrl: baseUrl ?? null, connection: connection ?? null },
      ]),
    ),
  );
