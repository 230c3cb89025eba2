// examples/ci-preview/policy through the unmodified CLI: `pulumi preview --policy-pack` starts it
// through the language host's RunPlugin. The pack is installed from its own package.json and
// lock file with `npm ci`, as a CI job does. A violation fails the preview with the policy's
// message; a compliant change passes; a user leaving the stack needs PULUMI_STORAGE_USER_ALLOW_REMOVAL.
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { ApiServer, startApiServer } from "../../../server/api-server";
import { repoRoot, TestStack } from "../../../scripts/stack";
import { userPath } from "../../../scripts/toolchain";
import { onNewestCli } from "../../support/cli-project";

const token = "policy-token-3b7e0a";
let api: ApiServer;
let pack: string;

beforeAll(async () => {
  api = await startApiServer({ token });
  pack = fs.mkdtempSync(path.join(os.tmpdir(), "psu-policy-"));
  fs.cpSync(path.join(repoRoot, "examples", "ci-preview", "policy"), pack, {
    recursive: true,
    filter: (src) => !src.includes("node_modules"),
  });
  execFileSync("npm", ["ci", "--no-audit", "--no-fund", "--prefer-offline"], {
    cwd: pack,
    env: { ...process.env, PATH: userPath(), npm_config_loglevel: "error" },
    stdio: ["ignore", "pipe", "pipe"],
    timeout: 240_000,
  });
}, 300_000);
afterAll(async () => {
  await api?.close();
  fs.rmSync(pack, { recursive: true, force: true });
});

// tsc alone, no CLI: the pinned CLI's run is enough.
test.skipIf(onNewestCli)("the pack type-checks with its own dependencies (strict)", () => {
  execFileSync(
    process.execPath,
    [path.join(pack, "node_modules", "typescript", "bin", "tsc"), "-p", pack, "--noEmit"],
    { encoding: "utf8", stdio: "pipe" },
  );
});

const policyPreview = (stack: TestStack, env?: Record<string, string>) =>
  stack.preview(["--policy-pack", pack], { env });

// The naming rule is the pack's own logic, which no CLI version changes; a violation failing the
// preview runs on the newest CLI in the removal tests below.
describe.skipIf(onNewestCli)("storage-user-name", () => {
  test("a userName breaking the rule fails preview with the policy's message, before any request", async () => {
    const stack = await TestStack.create({
      programDir: path.join(repoRoot, "examples", "ci-preview"),
      config: { "storage:baseUrl": api.url, "users[0].name": "app", "users[0].userName": "App_Main" },
    });
    try {
      const before = api.requests.length;
      const pv = await policyPreview(stack);
      expect(pv.code, pv.output).not.toBe(0);
      expect(pv.output).toContain("storage-user-name");
      expect(pv.output).toContain(
        "StorageUser 'app' has userName 'App_Main': user names are lowercase letters, digits and single hyphens, starting with a letter.",
      );
      await stack.must(["config", "set", "--path", "users[0].userName", "app-main"]);
      const wrongStack = await policyPreview(stack);
      expect(wrongStack.code).not.toBe(0);
      expect(wrongStack.output).toContain(
        `StorageUser 'app' has userName 'app-main': user names are ending in '-${stack.stackName}' (the stack).`,
      );
      expect(api.requests.length).toBe(before);
    } finally {
      await stack.dispose();
    }
  });
});

describe("storage-user-removal-approval", () => {
  let stack: TestStack;
  let names: { app: string; backup: string };
  beforeAll(async () => {
    // Resource names set, so that a new userName is a replacement, not a delete and a create.
    stack = await TestStack.create({
      programDir: path.join(repoRoot, "examples", "ci-preview"),
      config: { "storage:baseUrl": api.url, "users[0].name": "app", "users[1].name": "backup" },
    });
    names = { app: `app-${stack.stackName}`, backup: `backup-${stack.stackName}` };
    await stack.setConfig({ "users[0].userName": names.app, "users[1].userName": names.backup });
  });
  afterAll(() => stack.dispose());

  test("compliant names on a new stack pass, and so does the deploy after it", async () => {
    const pv = await policyPreview(stack);
    expect(pv.code, pv.output).toBe(0);
    expect(pv.output).not.toMatch(/mandatory|violation/i);
    const up = await stack.up(["--policy-pack", pack], { env: { STORAGE_ACCESS_TOKEN: token } });
    expect(up.code, up.output).toBe(0);
    expect(api.users.map((u) => u.Name)).toEqual(expect.arrayContaining([names.app, names.backup]));
  });

  // The analyzer's view of a replace runs on the newest CLI in the auto-named rotation below (its
  // new name unknown at preview); this message for a known new name, and a create needing no
  // approval, are the pack's own logic.
  test.skipIf(onNewestCli)(
    "a replaced user fails without approval, passes with it; an added user needs none",
    async () => {
      const requests = api.requests.length;
      const id = api.users.find((u) => u.Name === names.app)!.Id;
      await stack.setConfig({
        "users[0].userName": `app2-${stack.stackName}`,
        "users[2].userName": `extra-${stack.stackName}`, // named by its userName
      });
      const pv = await policyPreview(stack);
      expect(pv.code, pv.output).not.toBe(0);
      expect(pv.output).toContain("storage-user-removal-approval");
      expect(pv.output).toContain(
        `StorageUser '${names.app}' (id ${id}) would leave the stack (replaced: userName '${names.app}' => 'app2-${stack.stackName}') but stay on the storage service, which has no delete call. If that is intended, approve it with PULUMI_STORAGE_USER_ALLOW_REMOVAL=${names.app} (names separated by commas, or *).`,
      );
      // Approving another user approves nothing.
      const other = await policyPreview(stack, { PULUMI_STORAGE_USER_ALLOW_REMOVAL: names.backup });
      expect(other.code).not.toBe(0);
      // Approving the replaced user is enough: the added one is a create.
      const ok = await policyPreview(stack, { PULUMI_STORAGE_USER_ALLOW_REMOVAL: `${names.backup},${names.app}` });
      expect(ok.code, ok.output).toBe(0);
      expect(api.requests.length).toBe(requests);
      await stack.must(["config", "set", "--path", "users[0].userName", names.app]);
      await stack.must(["config", "rm", "--path", "users[2]"]);
    },
  );

  test("an auto-named user passes the naming rule; rotating it (replacementTrigger) needs approval", async () => {
    await stack.setConfig({ "users[2].name": "auto", "users[2].rotate": "1" }); // a trigger that changes, not one that appears
    const add = await stack.up(["--policy-pack", pack], { env: { STORAGE_ACCESS_TOKEN: token } });
    expect(add.code, add.output).toBe(0);
    const auto = api.users.find((u) => /^auto-[0-9a-f]{7}$/.test(u.Name))!;
    expect(auto).toBeDefined();
    await stack.must(["config", "set", "--path", "users[2].rotate", "2"]);
    const pv = await policyPreview(stack);
    expect(pv.code, pv.output).not.toBe(0);
    // The replacement's name is drawn at up: the policy sees it unknown, and still runs.
    expect(pv.output).toContain(
      `StorageUser '${auto.Name}' (id ${auto.Id}) would leave the stack (replaced: userName '${auto.Name}' => '(known after update)')`,
    );
    expect(pv.output).not.toContain("can't run policy");
    const ok = await policyPreview(stack, { PULUMI_STORAGE_USER_ALLOW_REMOVAL: auto.Name });
    expect(ok.code, ok.output).toBe(0);
    await stack.must(["config", "set", "--path", "users[2].rotate", "1"]);
  });

  test("a removed user fails without approval, passes with it", async () => {
    const id = api.users.find((u) => u.Name === names.backup)!.Id;
    await stack.must(["config", "rm", "--path", "users[1]"]);
    const pv = await policyPreview(stack);
    expect(pv.code, pv.output).not.toBe(0);
    expect(pv.output).toContain(
      `StorageUser '${names.backup}' (id ${id}) would leave the stack (removed from the program)`,
    );
    expect(pv.output).not.toContain(`StorageUser '${names.app}'`);
    const ok = await policyPreview(stack, { PULUMI_STORAGE_USER_ALLOW_REMOVAL: "*" });
    expect(ok.code, ok.output).toBe(0);
  });
});
