// Rotation against a service that keeps names unique (the bundled API's default), through the real
// CLI: an auto-named StorageUser (no userName) keeps its name on every update and gets a new one on
// every replace, so `replacementTrigger` and `up --replace` create a second user with new
// credentials, once, and the old one is named (id, name, service) in warnings and the ledger.
// Program: test/programs/options.
import { afterAll, beforeAll, expect, test } from "vitest";
import { ApiServer, startApiServer } from "../../../server/api-server";
import { TestStack } from "../../../scripts/stack";
import { onNewestCli } from "../../support/cli-project";

const token = "rotation-token-5c1e8a";
let api: ApiServer;
let stack: TestStack;
beforeAll(async () => {
  api = await startApiServer({ token });
  stack = await TestStack.create({
    programDir: "test/programs/options",
    config: { "storage:baseUrl": api.url, "options:users": "[]", "options:ledger": "true" },
    secrets: { "storage:accessToken": token },
  });
});
afterAll(async () => {
  await stack?.dispose();
  await api?.close();
});

const setUsers = (list: Array<Record<string, unknown>>) =>
  stack.must(["config", "set", "options:users", JSON.stringify(list)]);
const service = () => new URL(api.url).href;
type Row = { id: string; userName: string; baseUrl: string };
const userRow = async (name: string) => ((await stack.outputs()).users as Record<string, Row>)[name];
/** The user's S3 secret key as state holds it (decrypted by `stack export --show-secrets`). */
async function s3SecretOf(name: string): Promise<string> {
  const r = (await stack.resources(undefined, true)).find((x) => x.urn.endsWith(`::${name}`))!;
  return JSON.parse(JSON.parse(r.outputs.secrets.plaintext)).s3.secretKey;
}

/** Every generated name of resource `name` that a command printed. */
const namesIn = (output: string, name: string) => [
  ...new Set(output.match(new RegExp(`\\b${name}-[0-9a-f]{7}\\b`, "g")) ?? []),
];

test("auto-named: stable across updates, new on replacementTrigger and --replace; each replace creates one user with new credentials", async () => {
  await setUsers([{ name: "rot", replacementTrigger: "1" }]);
  // A generated name is made at up: preview shows none, rather than one up would not create.
  const created = await stack.preview(["--diff"]);
  expect(created.code, created.output).toBe(0);
  expect(namesIn(created.output, "rot")).toEqual([]);
  const first = await stack.up();
  expect(first.code, first.output).toBe(0);
  const v1 = await userRow("rot");
  expect(v1.userName).toMatch(/^rot-[0-9a-f]{7}$/);
  expect(api.users.map((u) => u.Name)).toEqual([v1.userName]);
  const key1 = await s3SecretOf("rot");

  // An update that changes nothing keeps the name: no replace, no request.
  const again = await stack.up();
  expect(again.code, again.output).toBe(0);
  expect(again.output).not.toMatch(/\d+ replaced|to replace/);
  expect((await userRow("rot")).userName).toBe(v1.userName);
  expect(api.createAttempts).toBe(1);

  // Rotation: the preview says which user stays behind, the up creates exactly one new user.
  await setUsers([{ name: "rot", replacementTrigger: "2" }]);
  const pv = await stack.preview(["--diff"]);
  expect(pv.code, pv.output).toBe(0);
  expect(pv.output).toMatch(/1 to replace/);
  // Only the name of the user that stays behind: the replacement's is made at up.
  expect(namesIn(pv.output, "rot")).toEqual([v1.userName]);
  expect(api.createAttempts).toBe(1);
  const rotated = await stack.up();
  expect(rotated.code, rotated.output).toBe(0);
  const v2 = await userRow("rot");
  expect(v2.userName).toMatch(/^rot-[0-9a-f]{7}$/);
  expect(v2.userName).not.toBe(v1.userName);
  expect(v2.id).not.toBe(v1.id);
  expect(api.createAttempts).toBe(2);
  expect(api.users.map((u) => u.Name)).toEqual([v1.userName, v2.userName]);
  expect(await s3SecretOf("rot")).not.toBe(key1);
  // The old user is named with its id, name and service, in the warning and in the ledger.
  expect(rotated.output).toContain(
    `[USER_LEFT_STACK] StorageUser '${v1.userName}' (id ${v1.id}, on ${service()}) left the stack but still exists on the storage service`,
  );
  expect((await stack.outputs()).forgotten).toEqual([
    expect.objectContaining({
      id: v1.id,
      userName: v1.userName,
      service: service(),
      why: "replaced",
      resourceName: "rot",
    }),
  ]);

  // `pulumi up --replace` of the URN does the same.
  const urn = (await stack.resources()).find((r) => r.urn.endsWith("::rot"))!.urn;
  const replaced = await stack.up(["--replace", urn]);
  expect(replaced.code, replaced.output).toBe(0);
  const v3 = await userRow("rot");
  expect(new Set([v1.userName, v2.userName, v3.userName]).size).toBe(3);
  expect(api.createAttempts).toBe(3);
  expect(replaced.output).toContain(`StorageUser '${v2.userName}' (id ${v2.id}, on ${service()}) left the stack`);
});

// The package's own diff and the service's refusal, which no CLI version changes: the pinned CLI's run.
test.skipIf(onNewestCli)(
  "an existing user whose program drops userName keeps it (no replace); an explicit name with a new trigger gets NAME_TAKEN, never advice to delete the live user",
  async () => {
    // The engine replaces on a trigger that changes, not on one that appears.
    await setUsers([{ name: "named", userName: "rot-named", replacementTrigger: "a" }]);
    expect((await stack.up()).code).toBe(0);
    const before = await userRow("named");
    const attempts = api.createAttempts;

    await setUsers([{ name: "named", replacementTrigger: "a" }]);
    const dropped = await stack.up();
    expect(dropped.code, dropped.output).toBe(0);
    expect(dropped.output).not.toMatch(/\d+ replaced|to replace/);
    expect(await userRow("named")).toEqual(before);
    expect(api.createAttempts).toBe(attempts);

    await setUsers([{ name: "named", userName: "rot-named", replacementTrigger: "b" }]);
    const taken = await stack.up();
    expect(taken.code, taken.output).not.toBe(0);
    expect(taken.output).toContain("[NAME_TAKEN] the storage API already has a user named 'rot-named'");
    expect(taken.output).toContain("leave userName out so a unique one is generated");
    expect(taken.output).not.toMatch(/delete (that|the existing) user/);
    expect(api.createAttempts).toBe(attempts + 1);
    expect(await userRow("named")).toEqual(before);
  },
);

// docs/lifecycle.md: the engine compares replacementTrigger only with an earlier value.
test("a replacementTrigger added to a user created without one is no change; the next change of it rotates", async () => {
  await setUsers([{ name: "late" }]);
  expect((await stack.up()).code).toBe(0);
  const created = api.createAttempts;
  const v1 = await userRow("late");
  await setUsers([{ name: "late", replacementTrigger: "1" }]);
  const added = await stack.up();
  expect(added.code, added.output).toBe(0);
  expect(added.output).not.toMatch(/\d+ replaced/);
  expect(api.createAttempts).toBe(created);
  expect((await userRow("late")).id).toBe(v1.id);
  await setUsers([{ name: "late", replacementTrigger: "2" }]);
  const changed = await stack.up();
  expect(changed.code, changed.output).toBe(0);
  expect(api.createAttempts).toBe(created + 1);
  expect((await userRow("late")).id).not.toBe(v1.id);
});
