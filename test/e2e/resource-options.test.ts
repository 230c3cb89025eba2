// Pulumi resource options on a StorageUser, through the real CLI, do what docs/lifecycle.md
// "Resource options" says. The ones that cannot work with a create-only API are refused by the
// constructor before anything runs: test/e2e/hostile-input.test.ts, in its one preview.
// One stack, steps in order, with a StorageUserLedger over all users. Program: test/programs/options.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { ApiServer, startApiServer } from "../../server/api-server";
import { TestStack } from "../../scripts/stack";

const token = "options-token-2b7d9e4f";
let api: ApiServer;
let other: ApiServer;
let stack: TestStack;
beforeAll(async () => {
  // The main service accepts a name twice (the spec states no uniqueness rule), so a rotation can
  // keep the userName; `other` keeps names unique, as many services do.
  api = await startApiServer({ token, allowDuplicateNames: true });
  other = await startApiServer({ token });
  stack = await TestStack.create({
    programDir: "test/programs/options",
    config: {
      "storage:baseUrl": api.url,
      "storage:connections.other.baseUrl": other.url,
      "options:users": "[]",
      "options:ledger": "true",
    },
    secrets: { "storage:accessToken": token },
  });
  await stack.must(["config", "set", "--path", "--secret", "storage:connections.other.accessToken"], { input: token });
});
afterAll(async () => {
  await stack?.dispose();
  await api?.close();
  await other?.close();
});

type Spec = Record<string, unknown> & { name: string; userName: string };
let specs: Spec[] = [];
async function setUsers(list: Spec[]) {
  specs = list;
  await stack.must(["config", "set", "options:users", JSON.stringify(list)]);
}
const change = (name: string, patch: Record<string, unknown>) =>
  setUsers(specs.map((s) => (s.name === name ? { ...s, ...patch } : s)));
const posts = () => api.createAttempts + other.createAttempts;
const ids = async () =>
  Object.fromEntries(
    Object.entries((await stack.outputs()).users as Record<string, { id: string }>).map(([k, v]) => [k, v.id]),
  );
const forgotten = async () =>
  ((await stack.outputs()).forgotten ?? []) as Array<{ id: string; userName: string; why: string }>;
const idOf = (userName: string) => String(api.users.find((u) => u.Name === userName)!.Id);

describe("the options that work", () => {
  test("up with protect, retainOnDelete, ignoreChanges, replacementTrigger, replaceOnChanges, customTimeouts", async () => {
    await setUsers([
      { name: "prot", userName: "opt-prot", protect: true },
      { name: "keep", userName: "opt-keep", retainOnDelete: true },
      { name: "ign", userName: "opt-ign", ignoreChanges: ["userName"] },
      { name: "trig", userName: "opt-trig", replacementTrigger: "1" },
      { name: "roc", userName: "opt-roc", replaceOnChanges: ["connection"] },
      { name: "mv", userName: "opt-mv", createTimeout: "45s" },
    ]);
    const r = await stack.up();
    expect(r.code, r.output).toBe(0);
    expect(api.users).toHaveLength(6);
    const mv = (await stack.resources()).find((x) => x.urn.endsWith("::mv"))!;
    expect(mv.inputs.__createTimeoutMs).toBe(45_000); // customTimeouts.create is the create's whole budget
  });

  test("protect: a replace is refused by the engine before any create; the user stays", async () => {
    const before = await ids();
    await change("prot", { userName: "opt-prot-2" });
    const r = await stack.up();
    expect(r.code, r.output).not.toBe(0);
    expect(r.output).toMatch(/protect/i);
    expect(posts()).toBe(6);
    expect((await ids()).prot).toBe(before.prot);
    await change("prot", { userName: "opt-prot" });
  });

  // Four options in one change, previewed and applied once: each user's step is its own.
  test('one change to four users: ignoreChanges ignores it; replacementTrigger, retainOnDelete and replaceOnChanges: ["connection"] each replace, the old user named and in the ledger', async () => {
    const before = await ids();
    const old = { trig: idOf("opt-trig"), keep: idOf("opt-keep"), roc: idOf("opt-roc") };
    const service = new URL(api.url).href;
    await change("ign", { userName: "opt-ign-renamed" });
    await change("trig", { replacementTrigger: "2" }); // the documented credential rotation
    await change("keep", { userName: "opt-keep-2" });
    await change("roc", { connection: "other" });
    const pv = await stack.preview();
    expect(pv.code, pv.output).toBe(0);
    expect(pv.output).not.toMatch(/StorageUser ign replace/);
    expect(pv.output).toMatch(/\+-\s+pulumi-nodejs:dynamic\/storage:StorageUser trig replace/);
    expect(pv.output).toContain(`StorageUser 'opt-keep' (id ${old.keep}, on ${service}) is to be replaced`);
    expect(posts()).toBe(6);

    const up = await stack.up();
    expect(up.code, up.output).toBe(0);
    expect(posts()).toBe(9); // trig, keep and roc; ign none
    const now = await ids();
    expect(now.ign).toBe(before.ign);
    expect(api.users.filter((u) => u.Name === "opt-trig")).toHaveLength(2);
    expect(now.trig).not.toBe(old.trig);
    expect(up.output).toContain(
      `StorageUser 'opt-trig' (id ${old.trig}, on ${service}) left the stack but still exists on the storage service`,
    );
    expect(up.output).toContain(`${old.trig} 'opt-trig' on ${service} (resource 'trig', replaced`);
    // retainOnDelete: the engine does not call the provider's delete, so no "left the stack" line from it; the ledger has it.
    expect(up.output).not.toContain(`StorageUser 'opt-keep' (id ${old.keep}, on ${service}) left the stack`);
    // replaceOnChanges: ["connection"]: the new user is on the new service.
    expect(other.users.filter((u) => u.Name === "opt-roc")).toHaveLength(1);
    expect(up.output).toContain(
      `StorageUser 'opt-roc' (id ${old.roc}, on ${service}) left the stack but still exists on the storage service`,
    );
    expect((await stack.outputs()).users.roc).toEqual(
      expect.objectContaining({
        id: String(other.users.find((u) => u.Name === "opt-roc")!.Id),
        baseUrl: new URL(other.url).href,
        connection: "other",
      }),
    );
    const ledger = await forgotten();
    expect(ledger).toContainEqual(expect.objectContaining({ id: old.trig, userName: "opt-trig", why: "replaced" }));
    expect(ledger.map((f) => f.id)).toEqual(expect.arrayContaining([old.keep, old.roc]));
    expect(ledger).toHaveLength(3);
  });

  test("replacementTrigger on a service with unique names: [NAME_TAKEN], nothing created, the old user untouched; reverting the trigger ends it", async () => {
    await setUsers([...specs, { name: "trig2", userName: "opt-trig2", connection: "other", replacementTrigger: "1" }]);
    expect((await stack.up()).code).toBe(0);
    const old = String(other.users.find((u) => u.Name === "opt-trig2")!.Id);
    const sent = posts();
    await change("trig2", { replacementTrigger: "2" });
    const r = await stack.up();
    expect(r.code, r.output).not.toBe(0);
    expect(r.output).toContain("[NAME_TAKEN] the storage API already has a user named 'opt-trig2'");
    expect(posts()).toBe(sent + 1);
    expect((await ids()).trig2).toBe(old);
    await change("trig2", { replacementTrigger: "1" });
    const back = await stack.up();
    expect(back.code, back.output).toBe(0);
    expect(posts()).toBe(sent + 1);
    expect((await ids()).trig2).toBe(old);
  });

  test("aliases: renaming and re-parenting keep the same user, no request, the ledger does not grow", async () => {
    const before = await ids();
    const count = (await forgotten()).length;
    const sent = posts();
    await setUsers(specs.map((s) => (s.name === "mv" ? { ...s, name: "moved", aliases: [{ name: "mv" }] } : s)));
    // An update (the URN the user records is rewritten, no API call), not a replace (docs/lifecycle.md).
    const pv = await stack.preview();
    expect(pv.output).toMatch(/~ +pulumi-nodejs:dynamic\/storage:StorageUser moved update/);
    expect(pv.output).not.toMatch(/to replace|to create/);
    let r = await stack.up();
    expect(r.code, r.output).toBe(0);
    expect((await ids()).moved).toBe(before.mv);

    await setUsers(
      specs.map((s) => (s.name === "moved" ? { ...s, parent: "box", aliases: [{ parent: "stack" }] } : s)),
    );
    r = await stack.up();
    expect(r.code, r.output).toBe(0);
    const res = (await stack.resources()).find((x) => x.urn.endsWith("::moved"))!;
    expect(res.urn).toContain("storage:test:Box$pulumi-nodejs:dynamic/storage:StorageUser::moved");
    expect(res.id).toBe(before.mv);
    expect(posts()).toBe(sent);
    expect(await forgotten()).toHaveLength(count);
  });

  test("protect: destroy is refused until it is removed", async () => {
    const r = await stack.destroy();
    expect(r.code, r.output).not.toBe(0);
    expect(r.output).toMatch(/protect/i);
    const prot = (await stack.resources()).find((x) => x.urn.endsWith("::prot"))!;
    expect(prot.id).toBe(idOf("opt-prot")); // the protected user is still in the stack
    await stack.must(["state", "unprotect", prot.urn, "--yes"]);
    const d = await stack.destroy();
    expect(d.code, d.output).toBe(0);
    expect(await stack.resources()).toHaveLength(0);
  });
});
