// What preview, up, refresh, replace, destroy and import do for a create-only API, through the
// real CLI on the root program (Pulumi.yaml at the repo root). This file is where preview without
// a token and up without one are proven through the CLI; other files rely on it (docs/testing.md).
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { ApiServer, startApiServer } from "../../../server/api-server";
import { TestStack } from "../../../scripts/stack";
import { onNewestCli } from "../../support/cli-project";
import { importStateFixture } from "../../support/state-fixtures";

const token = "lifecycle-token-9c1e7f";
let api: ApiServer;
beforeAll(async () => void (api = await startApiServer({ token })));
afterAll(() => api.close());

describe("the life of one user", () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await TestStack.create({
      programDir: ".",
      config: { "storage:baseUrl": api.url, "users[0].name": "app", "users[0].userName": "life-a" },
    });
  });
  afterAll(() => stack.dispose());

  test("preview needs no token and calls no API", async () => {
    const r = await stack.preview();
    expect(r.code, r.output).toBe(0);
    expect(r.output).toMatch(/\+\s+pulumi-nodejs:dynamic\/storage:StorageUser app create/);
    expect(api.requests).toHaveLength(0);
  });

  test("up without a token fails before any request, and records nothing", async () => {
    const r = await stack.up();
    expect(r.code).not.toBe(0);
    expect(r.output).toContain("[CONFIG_MISSING] no storage API access token is configured");
    expect(r.output).toContain("storage:accessToken");
    expect(api.requests).toHaveLength(0);
    expect(api.users).toHaveLength(0);
    expect(await stack.resources()).toHaveLength(0);
  });

  test("up creates exactly one user; its id is the user's Id", async () => {
    await stack.must(["config", "set", "--secret", "storage:accessToken"], { input: token });
    const r = await stack.up();
    expect(r.code, r.output).toBe(0);
    expect(api.users.map((u) => u.Name)).toEqual(["life-a"]);
    const [res] = await stack.resources();
    expect(res.id).toBe(String(api.users[0].Id));
    expect(res.outputs.userName).toBe("life-a");
    expect(JSON.parse(res.outputs.account)).toMatchObject({
      state: "New",
      tasks: [expect.objectContaining({ id: api.users[0].Tasks[0].Id })],
    });
    expect((await stack.outputs()).summary).toEqual({
      app: { userName: "life-a", userId: api.users[0].Id, s3Endpoint: api.users[0].S3Connection.Endpoint },
    });
  });

  test("a second up is a no-op: no request, nothing changed", async () => {
    const before = api.createAttempts;
    const r = await stack.up();
    expect(r.code, r.output).toBe(0);
    expect(r.output).toMatch(/3 unchanged/); // the stack, the user, the ledger
    expect(api.createAttempts).toBe(before);
  });

  test("refresh keeps the recorded state", async () => {
    const recorded = async () =>
      (await stack.resources(undefined, true)).map((r) => ({ id: r.id, inputs: r.inputs, outputs: r.outputs }));
    const before = await recorded();
    const r = await stack.refresh();
    expect(r.code, r.output).toBe(0);
    expect(await recorded()).toEqual(before);
    expect(JSON.stringify(before[0].outputs.secrets)).toContain(api.users[0].Password); // decrypted, so the comparison means something
    expect(api.createAttempts).toBe(1);
  });

  test("changing userName previews as a replace and forgets the old user with a warning", async () => {
    await stack.must(["config", "set", "--path", "users[0].userName", "life-b"]);
    const pv = await stack.preview(["--diff"]);
    expect(pv.code, pv.output).toBe(0);
    expect(pv.output).toMatch(/\+-\s*pulumi-nodejs:dynamic\/storage:StorageUser: \(replace\)/);
    expect(pv.output).toMatch(/~ userName\s*: "life-a" => "life-b"/);
    // Preview, which CI reviews, says which user will stay on the service: id, name, service.
    const old = api.users[0];
    expect(pv.output).toContain(
      `warning: [REPLACE_LEAVES_USER] StorageUser 'life-a' (id ${old.Id}, on ${new URL(api.url).href}) is to be replaced: the new user is created first, then this one leaves the stack but stays on the service`,
    );
    expect(api.createAttempts).toBe(1);

    const r = await stack.up();
    expect(r.code, r.output).toBe(0);
    expect(api.users.map((u) => u.Name)).toEqual(["life-a", "life-b"]);
    expect(r.output).toContain(
      `warning: [USER_LEFT_STACK] StorageUser 'life-a' (id ${old.Id}, on ${new URL(api.url).href}) left the stack but still exists on the storage service`,
    );
    const [res] = await stack.resources();
    expect(res.id).toBe(String(api.users[1].Id));
  });

  test("changing persistPassword under the same name replaces, and the service's 409 keeps the old user", async () => {
    await stack.must(["config", "set", "--path", "users[0].persistPassword", "true"]);
    const r = await stack.up();
    expect(r.code).not.toBe(0);
    expect(r.output).toContain("[NAME_TAKEN] the storage API already has a user named 'life-b'");
    const [res] = await stack.resources();
    expect(res.id).toBe(String(api.users[1].Id)); // still the old one, untouched
    expect(api.users).toHaveLength(2);
    await stack.must(["config", "rm", "--path", "users[0].persistPassword"]);
  });

  test("destroy removes it from state and names the user left on the service", async () => {
    const r = await stack.destroy();
    expect(r.code, r.output).toBe(0);
    const id = api.users[1].Id;
    expect(r.output).toContain(
      `warning: [USER_LEFT_STACK] StorageUser 'life-b' (id ${id}, on ${new URL(api.url).href}) left the stack but still exists on the storage service, which has no delete call`,
    );
    expect(await stack.resources()).toHaveLength(0);
    expect(api.users).toHaveLength(2);
  });
});

// The upgrades below take the engine's paths that test/e2e/engine/upgrade.test.ts runs on the newest CLI
// (imported state, the serialized provider in state run by refresh, preview, up and destroy).
test.skipIf(onNewestCli)("upgrading from an older serialized provider does not replace the user", async () => {
  const stack = await TestStack.create({
    programDir: "test/programs/upgrade",
    config: { "storage:baseUrl": api.url, "upgrade:userName": "upgraded", "upgrade:variant": "old" },
    secrets: { "storage:accessToken": token },
  });
  try {
    expect((await stack.up()).code).toBe(0);
    const [before] = await stack.resources();
    expect(before.outputs.__provider.length).toBeGreaterThan(1500); // the older, larger format
    const attempts = api.createAttempts;

    await stack.must(["config", "set", "upgrade:variant", "new"]);
    const pv = await stack.preview();
    expect(pv.code, pv.output).toBe(0);
    expect(pv.output).toMatch(/2 unchanged/);
    const up = await stack.up();
    expect(up.code, up.output).toBe(0);
    expect(api.createAttempts).toBe(attempts);
    const [after] = await stack.resources();
    expect(after.id).toBe(before.id);
    expect(after.inputs.__provider.length).toBeLessThan(400); // today's format, for the next operation
    expect((await stack.destroy()).code).toBe(0); // runs the provider stored by the older release
  } finally {
    await stack.dispose();
  }
});

test.skipIf(onNewestCli)(
  "state written by release 0.1.0 upgrades by one update with no API call; refresh records the service",
  async () => {
    const stack = await TestStack.create({
      programDir: "test/programs/upgrade",
      config: { "storage:baseUrl": api.url, "upgrade:userName": "upgraded", "upgrade:variant": "new" },
      secrets: { "storage:accessToken": token },
    });
    try {
      // Exported from a stack that release 0.1.0 (the commit before named connections) deployed.
      const state = await importStateFixture(stack, "test/programs/upgrade/state-0.1.0.json", api.url);
      const old = state.deployment.resources.find((r) => r.type.endsWith("StorageUser"))!.outputs;
      const credentials = JSON.parse(old.credentials.plaintext);
      const [before] = await stack.resources(undefined, true);
      expect(before.outputs.baseUrl).toBeUndefined();
      const attempts = api.createAttempts;

      // Preview says what the next up does: an update, no replace, and why.
      const pv = await stack.preview(["--diff"]);
      expect(pv.code, pv.output).toBe(0);
      expect(pv.output).toMatch(/1 to update/);
      expect(pv.output).not.toMatch(/to replace/);
      expect(pv.output).toContain(
        `StorageUser 'upgraded' (id ${before.id}) was recorded by pulumi-storage-user 0.1.x: the next pulumi up rewrites its state in the 0.2 shape`,
      );
      const up = await stack.up();
      expect(up.code, up.output).toBe(0);
      expect(up.output).toMatch(/1 updated/);
      const [after] = await stack.resources(undefined, true);
      expect(after.id).toBe(before.id);
      // The same values in today's shape: each once, the secret holding only secrets.
      expect(after.outputs).toEqual({
        __provider: after.inputs.__provider,
        // Recorded by the update, for the warning delete attaches to the resource.
        __urn: after.urn,
        userName: "upgraded",
        persistPassword: false,
        account: expect.any(String),
        secrets: expect.objectContaining({ plaintext: expect.any(String) }),
      });
      expect(JSON.parse(after.outputs.account)).toEqual({
        state: old.state,
        tasks: old.tasks,
        swiftEndpoint: old.swiftEndpoint,
        s3Endpoint: old.s3Endpoint,
        ftpHostName: old.ftpHostName,
      });
      expect(JSON.parse(JSON.parse(after.outputs.secrets.plaintext))).toEqual({
        name: credentials.name,
        password: credentials.password,
        swift: {
          tenantId: credentials.swift.tenantId,
          accessKey: credentials.swift.accessKey,
          password: credentials.swift.password,
        },
        s3: { accessKey: credentials.s3.accessKey, secretKey: credentials.s3.secretKey },
        ftp: { login: credentials.ftp.login, password: credentials.ftp.password },
      });
      const raw = stack.stateFileText();
      for (const secret of [
        credentials.password,
        credentials.swift.password,
        credentials.s3.secretKey,
        credentials.ftp.password,
      ])
        expect(raw).not.toContain(secret);
      expect((await stack.outputs()).userId).toBe(Number(before.id));

      const refresh = await stack.refresh();
      expect(refresh.code, refresh.output).toBe(0);
      expect(refresh.output).toContain(
        `StorageUser 'upgraded' (id ${before.id}) had no recorded service (created by 0.1.x): recorded as ${new URL(api.url).href}`,
      );
      const [refreshed] = await stack.resources(undefined, true);
      expect(JSON.parse(refreshed.outputs.account).baseUrl).toBe(new URL(api.url).href);
      expect(refreshed.outputs.secrets).toEqual(after.outputs.secrets);
      const again = await stack.preview();
      expect(again.output).toMatch(/2 unchanged/);
      expect(again.output).not.toContain("warning");
      expect(api.createAttempts).toBe(attempts);
      const destroy = await stack.destroy();
      expect(destroy.code, destroy.output).toBe(0);
      expect(destroy.output).toContain(
        `StorageUser 'upgraded' (id ${before.id}, on ${new URL(api.url).href}) left the stack`,
      );
    } finally {
      await stack.dispose();
    }
  },
);

test.each(["import", "get"])("adopting an existing user (%s) fails and says why", async (how) => {
  const stack = await TestStack.create({
    programDir: "test/programs/import-attempt",
    config: { "storage:baseUrl": api.url, "import-attempt:how": how },
  });
  try {
    const before = api.requests.length;
    const r = await stack.preview();
    expect(r.code).not.toBe(0);
    expect(r.output).toContain("[IMPORT_UNSUPPORTED] StorageUser 'adopted' cannot be imported or read by id");
    expect(r.output).toContain("no call that returns an existing user's credentials");
    expect(api.requests.length).toBe(before);
  } finally {
    await stack.dispose();
  }
});
