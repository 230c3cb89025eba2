// Upgrading replaces no user and calls no API, through the real CLI on one stack: a user written
// with an older, larger serialized provider; state written by releases 0.2.0 (commit 6c853a1, a user
// replaced once, so its ledger has a forgotten entry) and 0.4.0 (76ca546), whose serialized provider
// still runs and whose next preview and up change nothing; state written by 0.1.0, rewritten by one update; a YAML
// program's, by 0.5.0's plugin. Fixtures (test/programs/upgrade/state-*.json) are imported, secrets encrypted anew.
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, expect, onTestFinished, test } from "vitest";
import { ApiServer, startApiServer } from "../../../server/api-server";
import { TestStack } from "../../../scripts/stack";
import { installConsumer } from "../../../scripts/consumer";
import { userPath } from "../../../scripts/toolchain";
import { ok, onNewestCli } from "../../support/cli-project";
import { warningSaid } from "../../support/said";

const token = "upgrade-token-5d1c";
let api: ApiServer;
let stack: TestStack;
beforeAll(async () => {
  api = await startApiServer({ token });
  stack = await TestStack.create({
    programDir: "test/programs/upgrade",
    config: { "storage:baseUrl": api.url, "upgrade:userName": "upgraded", "upgrade:variant": "old" },
    secrets: { "storage:accessToken": token },
  });
});
afterAll(async () => {
  await stack?.dispose();
  await api?.close();
});

/** Imports a fixture (__STACK__ and __BASEURL__ filled in) and returns it as written, secrets in plain text. */
async function importFixture(version: string, into = stack): Promise<{ deployment: { resources: any[] } }> {
  const text = fs.readFileSync(`test/programs/upgrade/state-${version}.json`, "utf8");
  const state = JSON.parse(text.split("__STACK__").join(into.stackName).split("__BASEURL__").join(api.url));
  const config = fs.readFileSync(path.join(into.programDir, `Pulumi.${into.stackName}.yaml`), "utf8");
  const salt = /^encryptionsalt: (\S+)$/m.exec(config)![1];
  state.deployment.secrets_providers = { type: "passphrase", state: { salt } };
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "psu-upgrade-")), "state.json");
  fs.writeFileSync(file, JSON.stringify(state));
  await into.must(["stack", "import", "--file", file]);
  fs.rmSync(path.dirname(file), { recursive: true });
  return state;
}
const service = () => new URL(api.url).href;
const recorded = async () =>
  (await stack.exportState(true)).deployment.resources!.filter((r) => r.type.includes("dynamic/storage:"));
const byType = (resources: Array<Record<string, any>>, type: string) =>
  resources.find((r) => r.type.endsWith(`:${type}`))!;
const secretsOf = (user: Record<string, any>) => {
  const s = JSON.parse(JSON.parse(user.outputs.secrets.plaintext));
  return [s.password, s.swift.password, s.s3.secretKey, s.ftp.password] as string[];
};

// The engine paths of the next test (imported state, the serialized provider in state run by
// refresh, preview and up) are the ones the newest CLI runs.
test.skipIf(onNewestCli)("a user written with an older serialized provider is not replaced by today's", async () => {
  ok(await stack.up());
  const [before] = await stack.resources();
  expect(before.outputs.__provider.length).toBeGreaterThan(1500); // the older, larger format
  await stack.setConfig({ "upgrade:variant": "new" });
  const up = ok(await stack.up());
  expect(up.output).toMatch(/2 unchanged/);
  expect(api.createAttempts).toBe(1);
  const [after] = await stack.resources();
  expect(after.id).toBe(before.id);
  expect(after.inputs.__provider.length).toBeLessThan(400); // today's format, for the next operation
});

test.each(["0.2.0", "0.4.0"])(
  "%s's state: refresh runs its serialized provider; preview and up under today's package create, replace and change nothing",
  async (version) => {
    await stack.setConfig({ "upgrade:variant": "new", "upgrade:ledger": "true" });
    const state = await importFixture(version);
    const resources = state.deployment.resources;
    const olds = { user: byType(resources, "StorageUser"), ledger: byType(resources, "StorageUserLedger") };
    const outputs = resources.find((r) => r.type === "pulumi:pulumi:Stack")!.outputs;
    const requests = api.requests.length;
    // Refresh reads each resource through the __provider in state: 0.2.0's, before any up.
    ok(await stack.refresh());
    const refreshed = await recorded();
    expect(byType(refreshed, "StorageUser").outputs).toEqual(olds.user.outputs);
    expect(byType(refreshed, "StorageUserLedger").outputs).toEqual(olds.ledger.outputs);
    for (const r of [await stack.preview(["--diff"]), await stack.up()]) {
      expect(r.code, r.output).toBe(0);
      expect(r.output).toMatch(/Resources:\n\s+3 unchanged\n/); // the stack, the user, the ledger
    }
    expect(api.requests.length).toBe(requests);
    const after = await recorded();
    const [user, ledger] = [byType(after, "StorageUser"), byType(after, "StorageUserLedger")];
    expect([user.id, ledger.id]).toEqual([olds.user.id, olds.ledger.id]);
    for (const key of ["userName", "persistPassword", "account", "secrets"])
      expect(user.outputs[key], key).toEqual(olds.user.outputs[key]);
    for (const key of ["current", "forgotten"]) expect(ledger.outputs[key], key).toEqual(olds.ledger.outputs[key]);
    expect(await stack.outputs()).toEqual(outputs);
    // The credentials stay encrypted at rest after the rewrite.
    for (const s of secretsOf(olds.user)) expect(stack.stateFileText()).not.toContain(s);
  },
);

// A destroy's path is lifecycle's on the newest CLI.
test.skipIf(onNewestCli)(
  "0.2.0's state: destroy right after the import runs its serialized provider, with no API call",
  async () => {
    const user = byType((await importFixture("0.2.0")).deployment.resources, "StorageUser");
    const requests = api.requests.length;
    const destroy = ok(await stack.destroy());
    expect(destroy.output).toContain(
      warningSaid("USER_LEFT_STACK", { id: String(user.id), userName: "upgraded", service: service(), failed: false }),
    );
    expect(await stack.resources()).toHaveLength(0);
    expect(api.requests.length).toBe(requests);
  },
);

test.skipIf(onNewestCli)(
  "0.1.0's state upgrades by one update with no API call; refresh records the service",
  async () => {
    await stack.must(["config", "rm", "upgrade:ledger"]); // the stack 0.1.0 recorded had no ledger
    // Exported from a stack that release 0.1.0 (the commit before named connections) deployed.
    const old = byType((await importFixture("0.1.0")).deployment.resources, "StorageUser").outputs;
    const credentials = JSON.parse(old.credentials.plaintext);
    const [before] = await stack.resources(undefined, true);
    expect(before.outputs.baseUrl).toBeUndefined();
    const requests = api.requests.length;
    // Preview says what the next up does: an update, no replace, and why.
    const pv = ok(await stack.preview(["--diff"]));
    expect(pv.output).toMatch(/1 to update/);
    expect(pv.output).not.toMatch(/to replace/);
    expect(pv.output).toContain(warningSaid("STATE_UPGRADE", { id: before.id, userName: "upgraded" }));
    const up = ok(await stack.up());
    expect(up.output).toMatch(/1 updated/);
    const [after] = await stack.resources(undefined, true);
    expect(after.id).toBe(before.id);
    // The same values in today's shape: each once, the secret holding only secrets.
    expect(after.outputs).toEqual({
      __provider: after.inputs.__provider,
      __urn: after.urn, // recorded by the update, for the warning delete attaches to the resource
      userName: "upgraded",
      persistPassword: false,
      account: expect.any(String),
      secrets: expect.objectContaining({ plaintext: expect.any(String) }),
    });
    const { state, tasks, swiftEndpoint, s3Endpoint, ftpHostName } = old;
    expect(JSON.parse(after.outputs.account)).toEqual({ state, tasks, swiftEndpoint, s3Endpoint, ftpHostName });
    const { name, password, swift, s3, ftp } = credentials;
    expect(JSON.parse(JSON.parse(after.outputs.secrets.plaintext))).toEqual({
      name,
      password,
      swift: { tenantId: swift.tenantId, accessKey: swift.accessKey, password: swift.password },
      s3: { accessKey: s3.accessKey, secretKey: s3.secretKey },
      ftp: { login: ftp.login, password: ftp.password },
    });
    for (const s of secretsOf(after)) expect(stack.stateFileText()).not.toContain(s);
    expect((await stack.outputs()).userId).toBe(Number(before.id));
    const refresh = ok(await stack.refresh());
    const recorded = { id: before.id, userName: "upgraded", now: service() };
    expect(refresh.output).toContain(
      warningSaid("SERVICE_RECORDED", { ...recorded, connection: "the default connection (storage:baseUrl)" }),
    );
    const [refreshed] = await stack.resources(undefined, true);
    expect(JSON.parse(refreshed.outputs.account).baseUrl).toBe(service());
    expect(refreshed.outputs.secrets).toEqual(after.outputs.secrets);
    expect(api.requests.length).toBe(requests);
  },
);

test("0.5.0's YAML state (its plugin's): refresh keeps it; preview and up change nothing; an update stores TypeScript's state (account, secrets), no output; the same values; no API call", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "psu-upgrade-yaml-"));
  fs.cpSync("test/programs/upgrade-yaml", dir, { recursive: true });
  fs.symlinkSync(path.join(installConsumer(), "node_modules"), path.join(dir, "node_modules"));
  const host = execFileSync("bash", ["tools/yaml-host/build.sh"], { encoding: "utf8" }).trim();
  const [config, secrets] = [{ "storage-user:baseUrl": api.url }, { "storage-user:accessToken": token }];
  const yaml = await TestStack.create({ programDir: dir, config, secrets, env: { PATH: userPath(undefined, [host]) } });
  onTestFinished(() => yaml.dispose().then(() => fs.rmSync(dir, { recursive: true })));
  const resources = (await importFixture("0.5.0-yaml", yaml)).deployment.resources;
  const users = (rs: Array<Record<string, any>>) =>
    rs.filter((r) => r.type.endsWith(":StorageUser")).sort((a, b) => (a.urn < b.urn ? -1 : 1));
  const stored = async () => users((await yaml.exportState(true)).deployment.resources!);
  const requests = api.requests.length;
  ok(await yaml.refresh());
  expect(await stored()).toEqual(
    users(resources).map(({ inputs, outputs }) => expect.objectContaining({ inputs, outputs })),
  );
  for (const r of [await yaml.preview(["--diff"]), await yaml.up()]) {
    expect(r.code, r.output).toBe(0);
    expect(r.output).toMatch(/Resources:\n\s+3 unchanged\n/); // the stack, the two users
  }
  // An update the plugin makes with no API call: the same service recorded under a new address.
  const renamed = api.url.replace("127.0.0.1", "localhost");
  await yaml.setConfig({ "storage-user:baseUrl": renamed });
  expect(ok(await yaml.up([], { env: { STORAGE_SERVICE_NEW_ADDRESS: renamed } })).output).toMatch(/2 updated/);
  const shown = (o: Record<string, any>) => [
    // each value, and which are secret
    Object.fromEntries(Object.entries(o).map(([k, v]) => [k, v?.plaintext ? JSON.parse(v.plaintext) : v])),
    Object.keys(o).filter((k) => o[k]?.plaintext),
  ];
  const upgraded = users(resources).map(({ inputs: { __urn: _, ...inputs }, outputs: o }) => ({
    inputs,
    outputs: shown({
      ...inputs,
      __nameSuffix: undefined, // an input only: the name it made is the userName
      userName: o.userName,
      account: o.account.replace(api.url, renamed),
      secrets: o.secrets,
    }),
  }));
  expect((await stored()).map((u) => ({ inputs: u.inputs, outputs: shown(u.outputs) }))).toEqual(upgraded);
  expect(await yaml.outputs(true)).toEqual(shown(resources.find((r) => r.type === "pulumi:pulumi:Stack")!.outputs)[0]);
  expect(api.requests.length).toBe(requests);
});
