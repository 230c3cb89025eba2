// StorageUsers with hostile arguments, for test/hostile-input.test.ts. Config:
//   hostile:cases  JSON list of { name, args, opts?, route } where route is
//     "plain"        new StorageUser(name, args, opts): plain values and the resource options
//                    that cannot work are checked by the constructor;
//                    the error is printed as a `HOSTILE <name> <message>` line and the program
//                    goes on with the next case (it fails at the end if any case threw)
//     "plain-throw"  the same, but the error is left uncaught: the real program-error path
//     "output"       every argument wrapped in pulumi.output(): checked by the provider's check
//     "unknown"      every argument computed from another StorageUser's userId, so unknown at
//                    preview; the value is the JSON value with "<id>" replaced by that userId
// JSON has no undefined: an argument given as the string "<undefined>" is passed as undefined
// (a key that is present with no value).
import * as pulumi from "@pulumi/pulumi";
import { StorageUser } from "pulumi-storage-user";

interface Case {
  name: string;
  /** Usually an object; null or a string to test what is not one. */
  args: unknown;
  /** Resource options, for the plain route. */
  opts?: pulumi.CustomResourceOptions;
  route: "plain" | "plain-throw" | "output" | "unknown";
}

const cases = new pulumi.Config().requireObject<Case[]>("cases").map((c) => ({
  ...c,
  args:
    c.args === null || typeof c.args !== "object"
      ? c.args
      : Object.fromEntries(Object.entries(c.args as object).map(([k, v]) => [k, v === "<undefined>" ? undefined : v])),
}));
const thrown: string[] = [];
let source: StorageUser | undefined;

for (const c of cases) {
  switch (c.route) {
    case "plain":
      try {
        new StorageUser(c.name, c.args as never, c.opts);
        console.log(`HOSTILE ${c.name} accepted`);
      } catch (err) {
        console.log(`HOSTILE ${c.name} ${(err as Error).message}`);
        thrown.push(c.name);
      }
      break;
    case "plain-throw":
      new StorageUser(c.name, c.args as never);
      break;
    case "output":
      new StorageUser(
        c.name,
        Object.fromEntries(Object.entries((c.args ?? {}) as object).map(([k, v]) => [k, pulumi.output(v)])) as never,
      );
      break;
    case "unknown": {
      // A real create would POST this source user; preview only needs its Id to be unknown.
      source ??= new StorageUser(`${c.name}-source`, { userName: `${c.name}-source` });
      const id = source.userId;
      new StorageUser(
        c.name,
        Object.fromEntries(
          Object.entries((c.args ?? {}) as object).map(([k, v]) => [
            k,
            id.apply((n) => (typeof v === "string" ? v.replace("<id>", String(n)) : v)),
          ]),
        ) as never,
      );
      break;
    }
  }
}

if (thrown.length > 0) throw new Error(`${thrown.length} StorageUser constructor(s) threw: ${thrown.join(", ")}`);
