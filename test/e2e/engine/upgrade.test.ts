// State written by release 0.2.0 (commit 6c853a1, packed and installed as users get it; a user
// replaced once, so the ledger has a forgotten entry), under today's package: the `__provider`
// 0.2.0 serialized still runs, and the next preview and up neither create nor replace anything.
// (The 0.1.0 upgrade is in lifecycle.test.ts.)
import { afterAll, beforeAll, expect, test } from "vitest";
import { ApiServer, startApiServer } from "../../../server/api-server";
import { TestStack } from "../../../scripts/stack";
import { onNewestCli } from "../../support/cli-project";
import { importStateFixture } from "../../support/state-fixtures";

const fixture = "test/programs/upgrade/state-0.2.0.json";
const token = "upgrade-020-token-5d1c";
let api: ApiServer;
beforeAll(async () => void (api = await startApiServer({ token })));
afterAll(() => api.close());

function newStack() {
  return TestStack.create({
    programDir: "test/programs/upgrade",
    config: {
      "storage:baseUrl": api.url,
      "upgrade:userName": "upgraded",
      "upgrade:variant": "new",
      "upgrade:ledger": "true",
    },
    secrets: { "storage:accessToken": token },
  });
}

const recorded = async (stack: TestStack) =>
  (await stack.exportState(true)).deployment.resources!.filter((r) => r.type.includes("dynamic/storage:"));
const byType = (resources: Array<Record<string, any>>, type: string) =>
  resources.find((r) => r.type.endsWith(`:${type}`))!;

// On the pinned CLI alone: the engine runs the provider 0.2.0 recorded in state in the next test's
// refresh on the newest CLI too, and a destroy's path is lifecycle's.
test.skipIf(onNewestCli)(
  "destroy right after the import runs the provider 0.2.0 serialized, with no API call",
  async () => {
    const stack = await newStack();
    try {
      const state = await importStateFixture(stack, fixture, api.url);
      const user = byType(state.deployment.resources, "StorageUser");
      const attempts = api.createAttempts;
      const requests = api.requests.length;
      const destroy = await stack.destroy();
      expect(destroy.code, destroy.output).toBe(0);
      expect(destroy.output).toContain(
        `[USER_LEFT_STACK] StorageUser 'upgraded' (id ${user.id}, on ${new URL(api.url).href}) left the stack`,
      );
      expect(await stack.resources()).toHaveLength(0);
      expect(api.createAttempts).toBe(attempts);
      expect(api.requests.length).toBe(requests);
    } finally {
      await stack.dispose();
    }
  },
);

test("refresh, preview and up under today's package: no create, no replace, every output kept", async () => {
  const stack = await newStack();
  try {
    const state = await importStateFixture(stack, fixture, api.url);
    const olds = {
      user: byType(state.deployment.resources, "StorageUser"),
      ledger: byType(state.deployment.resources, "StorageUserLedger"),
    };
    const outputs = state.deployment.resources.find((r) => r.type === "pulumi:pulumi:Stack")!.outputs;
    const attempts = api.createAttempts;
    const requests = api.requests.length;

    // Refresh reads each resource through the __provider in state: 0.2.0's, before any up.
    const refresh = await stack.refresh();
    expect(refresh.code, refresh.output).toBe(0);
    const refreshed = await recorded(stack);
    expect(byType(refreshed, "StorageUser").outputs).toEqual(olds.user.outputs);
    expect(byType(refreshed, "StorageUserLedger").outputs).toEqual(olds.ledger.outputs);

    const pv = await stack.preview(["--diff"]);
    expect(pv.code, pv.output).toBe(0);
    expect(pv.output).toMatch(/Resources:\n\s+3 unchanged\n/); // the stack, the user, the ledger

    const up = await stack.up();
    expect(up.code, up.output).toBe(0);
    expect(up.output).toMatch(/Resources:\n\s+3 unchanged\n/);
    expect(api.createAttempts).toBe(attempts);
    expect(api.requests.length).toBe(requests);

    const after = await recorded(stack);
    const user = byType(after, "StorageUser");
    const ledger = byType(after, "StorageUserLedger");
    expect(user.id).toBe(olds.user.id);
    expect(ledger.id).toBe(olds.ledger.id);
    for (const key of ["userName", "persistPassword", "account", "secrets"])
      expect(user.outputs[key], key).toEqual(olds.user.outputs[key]);
    expect({ current: ledger.outputs.current, forgotten: ledger.outputs.forgotten }).toEqual({
      current: olds.ledger.outputs.current,
      forgotten: olds.ledger.outputs.forgotten,
    });
    expect(await stack.outputs()).toEqual(outputs);
    // The credentials stay encrypted at rest after the rewrite.
    const raw = stack.stateFileText();
    const secrets = JSON.parse(JSON.parse(olds.user.outputs.secrets.plaintext));
    for (const s of [secrets.password, secrets.swift.password, secrets.s3.secretKey, secrets.ftp.password])
      expect(raw).not.toContain(s);

    const again = await stack.preview();
    expect(again.code, again.output).toBe(0);
    expect(again.output).toMatch(/Resources:\n\s+3 unchanged\n/);
    const destroy = await stack.destroy();
    expect(destroy.code, destroy.output).toBe(0);
    expect(api.createAttempts).toBe(attempts);
  } finally {
    await stack.dispose();
  }
});
