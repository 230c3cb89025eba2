// examples/ci-preview/policy through the unmodified CLI: `--policy-pack` starts it through the
// language host's RunPlugin and policy proxy, installed with `npm ci` as a CI job does. A name
// breaking the rule fails the preview; a user leaving the stack (removed, or replaced with a known
// or a generated new name) needs PULUMI_STORAGE_USER_ALLOW_REMOVAL naming it; an added one does
// not. The stand-in language host's own test: the CLI drives it through preview, up and the pack.
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { ApiServer, startApiServer } from "../../../server/api-server";
import { repoRoot, TestStack } from "../../../scripts/stack";
import { userPath } from "../../../scripts/toolchain";
import { failed, ok, onNewestCli } from "../../support/cli-project";

const token = "policy-token-3b7e0a";
let api: ApiServer;
let pack: string;
let stack: TestStack;
let names: { app: string; backup: string };

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
  });
  // Resource names set, so that a new userName is a replacement, not a delete and a create.
  stack = await TestStack.create({
    programDir: path.join(repoRoot, "examples", "ci-preview"),
    config: { "storage:baseUrl": api.url, "users[0].name": "app", "users[1].name": "backup" },
  });
  names = { app: `app-${stack.stackName}`, backup: `backup-${stack.stackName}` };
});
afterAll(async () => {
  await stack?.dispose();
  await api?.close();
  fs.rmSync(pack, { recursive: true, force: true });
});

const setUsers = (users: Array<Record<string, string>>) =>
  stack.must(["config", "set", "--path", "users", JSON.stringify(users)]);
const policyPreview = (env?: Record<string, string>) => stack.preview(["--policy-pack", pack], { env });

// tsc alone, and the pack's own naming logic, which no CLI version changes: the pinned CLI's run.
test.skipIf(onNewestCli)("the pack type-checks with its own dependencies (strict)", () => {
  execFileSync(process.execPath, [path.join(pack, "node_modules", "typescript", "bin", "tsc"), "-p", pack, "--noEmit"]);
});

test.skipIf(onNewestCli)(
  "a userName breaking the naming rule fails preview with the policy's message, before any request",
  async () => {
    await setUsers([{ name: "app", userName: "App_Main" }]);
    const pv = failed(await policyPreview());
    expect(pv.output).toContain("storage-user-name");
    expect(pv.output).toContain(
      "StorageUser 'app' has userName 'App_Main': user names are lowercase letters, digits and single hyphens, starting with a letter.",
    );
    await setUsers([{ name: "app", userName: "app-main" }]);
    const wrongStack = failed(await policyPreview());
    expect(wrongStack.output).toContain(
      `has userName 'app-main': user names are ending in '-${stack.stackName}' (the stack).`,
    );
    expect(api.requests).toHaveLength(0);
  },
);

test("the CLI runs the program and the pack through the stand-in host; compliant names and an auto-named user pass preview and up", async () => {
  // The host next to `pulumi` is the repo's stand-in (docs/development.md), taken as bundled: no "from $PATH" warning.
  expect(fs.readFileSync(path.join(stack.cliDir, "pulumi-language-nodejs"), "utf8")).toContain("language-host/main.js");
  await setUsers([
    { name: "app", userName: names.app },
    { name: "backup", userName: names.backup },
    { name: "auto", rotate: "1" }, // a trigger that changes later, not one that appears
  ]);
  // Not --skip-preview: the pack runs in up's preview and in the update.
  const up = ok(
    await stack.run(["up", "--yes", "--non-interactive", "--policy-pack", pack], {
      env: { STORAGE_ACCESS_TOKEN: token },
    }),
  );
  expect(up.output).not.toMatch(/mandatory|violation|from \$PATH/i);
  expect(up.output).toMatch(/Previewing update[\s\S]*Updating/);
  expect(api.users.map((u) => u.Name)).toEqual(expect.arrayContaining([names.app, names.backup]));
  expect(api.users.find((u) => /^auto-[0-9a-f]{7}$/.test(u.Name))).toBeDefined();
});

test("a user leaving the stack fails without approval of it: replaced (known or generated new name) or removed; an added one needs none", async () => {
  const byName = (n: string) => api.users.find((u) => u.Name === n)!;
  const [app, backup, auto] = [
    byName(names.app),
    byName(names.backup),
    api.users.find((u) => u.Name.startsWith("auto-"))!,
  ];
  const requests = api.requests.length;
  await setUsers([
    { name: "app", userName: `app2-${stack.stackName}` },
    { name: "auto", rotate: "2" },
    { name: "extra", userName: `extra-${stack.stackName}` },
  ]);
  const leave = (u: typeof app, why: string) => `StorageUser '${u.Name}' (id ${u.Id}) would leave the stack (${why})`;
  const replacedApp = leave(app, `replaced: userName '${names.app}' => 'app2-${stack.stackName}'`);
  // The replacement's name is drawn at up: the policy sees it unknown, and still runs.
  const rotatedAuto = leave(auto, `replaced: userName '${auto.Name}' => '(known after update)'`);
  const removedBackup = leave(backup, "removed from the program");
  // Approving one user approves no other.
  const partly = failed(await policyPreview({ PULUMI_STORAGE_USER_ALLOW_REMOVAL: names.app }));
  expect(partly.output).toContain("storage-user-removal-approval");
  expect(partly.output).toContain(
    `${removedBackup} but stay on the storage service, which has no delete call. If that is intended, approve it with PULUMI_STORAGE_USER_ALLOW_REMOVAL=${names.backup} (names separated by commas, or *).`,
  );
  expect(partly.output).toContain(rotatedAuto);
  expect(partly.output).not.toContain(`StorageUser '${names.app}' (id ${app.Id}) would leave`);
  expect(partly.output).not.toMatch(/can't run policy|StorageUser 'extra-/);
  // The message for a known new name is the pack's own logic: the pinned CLI's run.
  if (!onNewestCli) expect((await policyPreview()).output).toContain(replacedApp);
  ok(await policyPreview({ PULUMI_STORAGE_USER_ALLOW_REMOVAL: `${names.app},${auto.Name},${names.backup}` }));
  expect(api.requests.length).toBe(requests);
});
