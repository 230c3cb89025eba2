// The StorageUserLedger through the real CLI, on examples/from-config: replaced and removed users
// are recorded once, survive later runs, leave on cleanedUp, and destroy prints them; a user whose
// create never confirmed blocks the ledger's update until it is replaced. The pure reconcile and
// diff logic is test/unit/ledger-logic.test.ts's.
import * as path from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { ApiServer, startApiServer } from "../../server/api-server";
import { repoRoot, TestStack } from "../../scripts/stack";

const token = "ledger-token-42c1e0";
let api: ApiServer;
beforeAll(async () => void (api = await startApiServer({ token })));
afterAll(async () => api?.close());

const newStack = () =>
  TestStack.create({
    programDir: path.join(repoRoot, "examples", "from-config"),
    env: { STORAGE_API_URL: api.url, STORAGE_ACCESS_TOKEN: token },
  });
const setUsers = (s: TestStack, users: object[]) =>
  s.must(["config", "set", "from-config:users", JSON.stringify(users)]);
const idOf = (userName: string) => String(api.users.find((u) => u.Name === userName)!.Id);
const svc = () => new URL(api.url).href;
const ledgerState = async (s: TestStack) => (await s.resources("pulumi-nodejs:dynamic/storage:StorageUserLedger"))[0];

test("replace and remove are recorded once, survive later ups, leave on cleanedUp, and destroy prints them", async () => {
  const stack = await newStack();
  try {
    await setUsers(stack, [
      { name: "app", userName: "ledger-app-v1" },
      { name: "batch", userName: "ledger-batch-v1" },
    ]);
    expect((await stack.up()).code).toBe(0);
    expect((await stack.outputs()).forgotten).toEqual([]);
    const provider: string = (await ledgerState(stack)).outputs.__provider;
    expect(provider).toContain('require("pulumi-storage-user/dist/provider/ledger-runtime');
    expect(Buffer.byteLength(provider)).toBeLessThan(512);

    // Rename app (a replacement) and drop batch in one change.
    await setUsers(stack, [{ name: "app", userName: "ledger-app-v2" }]);
    const second = await stack.up();
    expect(second.code, second.output).toBe(0);
    expect(second.output).toContain("StorageUserLedger: 2 storage user(s) left the stack but not the service");
    const forgotten = (await stack.outputs()).forgotten;
    const entry = (userName: string, resourceName: string, why: string) => ({
      id: idOf(userName),
      userName,
      service: svc(),
      resourceName,
      why,
      onService: "exists",
      at: expect.any(String),
    });
    expect(forgotten).toEqual([
      entry("ledger-app-v1", "app", "replaced"),
      entry("ledger-batch-v1", "batch", "removed"),
    ]);
    expect(new Date(forgotten[0].at).toISOString()).toBe(forgotten[0].at);

    // Nothing changed: the record stays exactly as it was and nothing is announced again.
    const creates = api.createAttempts;
    const third = await stack.up();
    expect(third.code, third.output).toBe(0);
    expect(third.output).not.toContain("StorageUserLedger:");
    expect((await stack.outputs()).forgotten).toEqual(forgotten);

    // The operator deleted batch-v1 on the service.
    await stack.must(["config", "set", "from-config:cleanedUp", JSON.stringify([idOf("ledger-batch-v1")])]);
    expect((await stack.up()).code).toBe(0);
    expect((await stack.outputs()).forgotten).toEqual([forgotten[0]]);

    const destroy = await stack.destroy();
    expect(destroy.code, destroy.output).toBe(0);
    expect(destroy.output).toContain(
      `Forgotten users still on the storage service (1): ${idOf("ledger-app-v1")} 'ledger-app-v1' on ${svc()} (resource 'app', replaced ${forgotten[0].at})`,
    );
    expect(destroy.output).toContain(
      `Users it tracked, which stay on the service too if they leave the stack now (1): ${idOf("ledger-app-v2")} 'ledger-app-v2' on ${svc()} (resource 'app')`,
    );
    expect(api.createAttempts).toBe(creates);
  } finally {
    await stack.dispose();
  }
});

test("a user whose create never confirmed blocks the ledger's update until it is replaced, and its delete warning names it", async () => {
  const stack = await newStack();
  try {
    await setUsers(stack, [{ name: "app", userName: "maybe-v1" }]);
    expect((await stack.up()).code).toBe(0);
    // The API stores maybe-v2 but the answer never arrives: the stack records it as unconfirmed.
    api.inject({ kind: "drop", after: "create" });
    await setUsers(stack, [{ name: "app", userName: "maybe-v2" }]);
    const failed = await stack.up();
    expect(failed.code).not.toBe(0);
    expect(failed.output).toContain("[OUTCOME_UNKNOWN]");
    const unconfirmed = (await stack.resources()).find((r) => r.outputs.userName === "maybe-v2")!.id as string;
    expect(unconfirmed).toMatch(/^unconfirmed-/);
    // The ledger depends on the failed user, so it was not updated.
    expect((await ledgerState(stack)).outputs.current).toEqual({
      app: { id: idOf("maybe-v1"), userName: "maybe-v1", service: svc() },
    });
    // refresh keeps the record (the next up's refusal is faults.test.ts's). Renaming replaces the
    // unconfirmed user: the ledger never had its id, so the StorageUser's own delete warning names it.
    expect((await stack.refresh()).code).toBe(0);
    await setUsers(stack, [{ name: "app", userName: "maybe-v3" }]);
    const renamed = await stack.up();
    expect(renamed.code, renamed.output).toBe(0);
    expect(renamed.output).toContain(
      `StorageUser 'maybe-v2' (${unconfirmed}, on ${svc()}) left the stack; its create did not finish cleanly, so a user 'maybe-v2' may exist`,
    );
    expect((await stack.outputs()).forgotten.map((f: any) => [f.id, f.why, f.onService])).toEqual([
      [idOf("maybe-v1"), "replaced", "exists"],
    ]);
  } finally {
    await stack.dispose();
  }
});
