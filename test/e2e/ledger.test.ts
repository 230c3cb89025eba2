// The StorageUserLedger through the real CLI, on one stack of examples/from-config. The pure
// reconcile and diff logic is test/unit/ledger-logic.test.ts's.
import * as path from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { ApiServer, startApiServer } from "../../server/api-server";
import { repoRoot, TestStack } from "../../scripts/stack";
import { failed, ok } from "../support/cli-project";

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

test("replace and remove are recorded once, survive later ups, leave on cleanedUp; a user whose create never confirmed blocks the ledger until replaced; destroy prints them", async () => {
  const stack = await newStack();
  try {
    await setUsers(stack, [
      { name: "app", userName: "ledger-app-v1" },
      { name: "batch", userName: "ledger-batch-v1" },
    ]);
    ok(await stack.up());
    expect((await stack.outputs()).forgotten).toEqual([]);
    const provider: string = (await ledgerState(stack)).outputs.__provider;
    expect(provider).toContain('require("pulumi-storage-user/dist/provider/ledger-runtime');
    expect(Buffer.byteLength(provider)).toBeLessThan(512);

    // Rename app (a replacement) and drop batch in one change.
    await setUsers(stack, [{ name: "app", userName: "ledger-app-v2" }]);
    const second = ok(await stack.up());
    expect(second.output).toContain("StorageUserLedger: 2 storage user(s) left the stack but not the service");
    const forgotten = (await stack.outputs()).forgotten;
    const entry = (userName: string, why: string) => ({
      id: idOf(userName),
      userName,
      service: svc(),
      resourceName: userName.split("-")[1],
      why,
      onService: "exists",
      at: expect.any(String),
    });
    expect(forgotten).toEqual([entry("ledger-app-v1", "replaced"), entry("ledger-batch-v1", "removed")]);
    expect(new Date(forgotten[0].at).toISOString()).toBe(forgotten[0].at);

    // Nothing changed: the record stays exactly as it was and nothing is announced again. Then the
    // operator deletes batch-v1 on the service and lists it in cleanedUp: it leaves the ledger.
    const third = ok(await stack.up());
    expect(third.output).not.toContain("StorageUserLedger:");
    expect((await stack.outputs()).forgotten).toEqual(forgotten);
    await stack.must(["config", "set", "from-config:cleanedUp", JSON.stringify([idOf("ledger-batch-v1")])]);
    ok(await stack.up());
    expect((await stack.outputs()).forgotten).toEqual([forgotten[0]]);

    // The API stores app-v3 but the answer never arrives: the stack records it as unconfirmed, and the
    // ledger, which depends on it, is not updated; refresh keeps the record (the next up's refusal is faults.test.ts's).
    api.inject({ kind: "drop", after: "create" });
    await setUsers(stack, [{ name: "app", userName: "ledger-app-v3" }]);
    const refused = failed(await stack.up());
    expect(refused.output).toContain("[OUTCOME_UNKNOWN]");
    const unconfirmed = (await stack.resources()).find((r) => r.outputs.userName === "ledger-app-v3")!.id as string;
    expect(unconfirmed).toMatch(/^unconfirmed-/);
    expect((await ledgerState(stack)).outputs.current).toEqual({
      app: { id: idOf("ledger-app-v2"), userName: "ledger-app-v2", service: svc() },
    });
    ok(await stack.refresh());
    // Renaming replaces the unconfirmed user: the ledger never had its id, so the StorageUser's own delete warning names it.
    await setUsers(stack, [{ name: "app", userName: "ledger-app-v4" }]);
    const renamed = ok(await stack.up());
    expect(renamed.output).toContain(
      `StorageUser 'ledger-app-v3' (${unconfirmed}, on ${svc()}) left the stack; its create did not finish cleanly, so a user 'ledger-app-v3' may exist`,
    );
    expect((await stack.outputs()).forgotten.map((f: any) => [f.userName, f.why])).toEqual([
      ["ledger-app-v1", "replaced"],
      ["ledger-app-v2", "replaced"],
    ]);

    const creates = api.createAttempts;
    const destroy = ok(await stack.destroy());
    expect(destroy.output).toContain(
      `Forgotten users still on the storage service (2): ${idOf("ledger-app-v1")} 'ledger-app-v1' on ${svc()} (resource 'app', replaced ${forgotten[0].at})`,
    );
    expect(destroy.output).toContain(
      `Users it tracked, which stay on the service too if they leave the stack now (1): ${idOf("ledger-app-v4")} 'ledger-app-v4' on ${svc()} (resource 'app')`,
    );
    expect(api.createAttempts).toBe(creates);
  } finally {
    await stack.dispose();
  }
});
