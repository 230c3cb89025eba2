// The StorageUserLedger's pure logic, called directly (no CLI): what reconcile records as replaced,
// removed or possibly existing, diff and check. test/e2e/engine/lifecycle.test.ts runs it through the CLI.
import { describe, expect, test } from "vitest";
import { check, diff, reconcile } from "../../provider/ledger-runtime";
import { UNKNOWN } from "../../provider/arguments";
import { nameFromUrn } from "../../provider/identity";

describe("ledger logic", () => {
  const a = { name: "app", id: "1", userName: "app-v1" };
  const b = { name: "batch", id: "2", userName: "batch-v1" };
  const start = reconcile({ current: {}, forgotten: [] }, [a, b], [], "t0").outputs;

  test("a new id under a name is 'replaced', a vanished name 'removed', an unconfirmed id 'may exist'", () => {
    const { outputs, added } = reconcile(start, [{ ...a, id: "unconfirmed-x", userName: "app-v2" }], [], "t1");
    expect(added).toEqual([
      { id: "1", userName: "app-v1", resourceName: "app", at: "t1", why: "replaced", onService: "exists" },
      { id: "2", userName: "batch-v1", resourceName: "batch", at: "t1", why: "removed", onService: "exists" },
    ]);
    const later = reconcile(outputs, [], ["2"], "t2");
    const unconfirmed = { id: "unconfirmed-x", userName: "app-v2", resourceName: "app", at: "t2" };
    expect(later.added).toEqual([{ ...unconfirmed, why: "removed", onService: "may exist" }]);
    expect(later.outputs.forgotten.map((f) => f.id)).toEqual(["1", "unconfirmed-x"]);
  });

  test("a user renamed with aliases keeps its id and is not forgotten", () => {
    expect(reconcile(start, [{ ...a, name: "web" }, b], [], "t1").added).toEqual([]);
  });

  test("diff: order does not matter, unknown ids do, and it never replaces the ledger", async () => {
    const diffTo = (news: Record<string, unknown>) => diff("l", { ...start }, news);
    expect(await diffTo({ users: [b, a], cleanedUp: [] })).toEqual({ changes: false, replaces: [] });
    expect(await diffTo({ users: [a, { ...b, id: UNKNOWN }] })).toEqual({ changes: true, replaces: [] });
    expect(await diffTo({ users: [a] })).toEqual({ changes: true, replaces: [] });
  });

  test("check rejects two users under one name and malformed ids", async () => {
    const r = await check({}, { users: [a, { ...a, id: "9" }, { name: "x", id: 3 }], cleanedUp: [true] });
    expect(r.failures?.map((f) => f.property)).toEqual(["users[1]", "users[2]", "cleanedUp"]);
    expect((await check({}, { users: UNKNOWN, cleanedUp: [1469, "1470"] })).failures).toEqual([]);
  });

  test("resource names come from URNs, '::' included", () => {
    expect(nameFromUrn("urn:pulumi:dev::proj::pulumi-nodejs:dynamic/storage:StorageUser::app")).toBe("app");
    expect(nameFromUrn("urn:pulumi:dev::proj::my:comp$pulumi-nodejs:dynamic/storage:StorageUser::a::b")).toBe("a::b");
  });
});
