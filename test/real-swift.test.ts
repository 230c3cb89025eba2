// The Swift credentials a real `pulumi up` hands out work in real Swift clients: the local API in
// real mode creates each user in Keystone (v3) with a project of its own, served by a real Swift
// proxy (server/swift-backend.ts). python-swiftclient and rclone (both Debian packages) get only
// the user's `env` output as their environment, with nothing added: put and get an object; a
// wrong password is refused by Keystone (401); another user's account is refused by Swift (403).
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, expect, test } from "vitest";
import { RealApiServer, startRealApiServer } from "../server/real-backends";
import { swiftMissing } from "../server/swift-backend";
import { repoRoot, TestStack } from "../scripts/stack";
import { hits, secretsOf, withEncodings } from "./secrets";

const exec = promisify(execFile);
const token = `real-swift-${Date.now().toString(36)}`;
let api: RealApiServer;
let stack: TestStack;
let env: Record<string, Record<string, string>>;
let work: string;
const printed: Array<[string, string]> = [];

beforeAll(async () => {
  // The global setup installs them (tools/real-servers/swift.sh); without them this file fails.
  expect(swiftMissing()).toEqual([]);
  work = fs.mkdtempSync(path.join(os.tmpdir(), "psu-swift-"));
  api = await startRealApiServer({ token });
  expect(api.backends.swift, "real mode started without Swift").toBeDefined();
  stack = await TestStack.create({
    programDir: repoRoot,
    config: { "storage:baseUrl": api.url, "users[0].name": "app", "users[1].name": "backup" },
    secrets: { "storage:accessToken": token },
  });
  const up = await stack.up();
  printed.push(["pulumi up", up.output]);
  expect(up.code, up.output).toBe(0);
  const credentials = (await stack.outputs(true)).credentials;
  env = { app: credentials.app.env, backup: credentials.backup.env };
});
afterAll(async () => {
  await stack?.dispose();
  await api?.close();
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

/** A client with the user's env as its whole environment, besides where to find programs and a home. */
async function client(
  cmd: string,
  args: string[],
  userEnv: Record<string, string>,
  extra: Record<string, string> = {},
) {
  try {
    const r = await exec(cmd, args, {
      cwd: work,
      env: { PATH: "/usr/bin:/bin", HOME: work, ...userEnv, ...extra },
      timeout: 60_000,
    });
    printed.push([`${cmd} ${args[0]}`, r.stdout + r.stderr]);
    return { code: 0, output: r.stdout + r.stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    printed.push([`${cmd} ${args[0]}`, `${e.stdout ?? ""}${e.stderr ?? ""}`]);
    return { code: typeof e.code === "number" ? e.code : 1, output: `${e.stdout ?? ""}${e.stderr ?? ""}` };
  }
}
// rclone's backend settings, not credentials: the credentials come from the OS_* variables (env_auth).
const rcloneRemote = { RCLONE_CONFIG_S_TYPE: "swift", RCLONE_CONFIG_S_ENV_AUTH: "true" };

test("the Swift connection is the user's Keystone login: v3 identity URL, project id, user name, password", () => {
  for (const [name, e] of Object.entries(env)) {
    const issued = api.users.find((u) => u.SwiftApiConnection.Password === e.OS_PASSWORD)!;
    expect(issued, name).toBeDefined();
    expect(e.OS_AUTH_URL).toBe(api.backends.swift!.authUrl);
    expect(e.OS_AUTH_URL).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v3$/);
    expect(e.OS_PROJECT_ID).toBe(issued.SwiftApiConnection.TenantId);
    expect(e.OS_USERNAME).toBe(issued.SwiftApiConnection.AccessKey);
    expect(e.OS_IDENTITY_API_VERSION).toBe("3");
    expect(e.OS_USER_DOMAIN_NAME).toBe("Default");
  }
});

test("python-swiftclient uploads, stats and downloads an object with env alone", async () => {
  const body = `swift object of ${Date.now()}\n`;
  fs.writeFileSync(path.join(work, "hello.txt"), body);
  expect((await client("swift", ["upload", "app-container", "hello.txt"], env.app)).code).toBe(0);
  const stat = await client("swift", ["stat", "app-container"], env.app);
  expect(stat.code, stat.output).toBe(0);
  expect(stat.output).toMatch(/Objects: 1/);
  expect(stat.output).toContain(`Account: AUTH_${env.app.OS_PROJECT_ID}`);
  const got = await client("swift", ["download", "app-container", "hello.txt", "-o", "-"], env.app);
  expect(got.code, got.output).toBe(0);
  expect(got.output).toBe(body);
});

test("rclone's swift backend (env_auth) puts and gets an object with env alone", async () => {
  fs.writeFileSync(path.join(work, "r.txt"), "over rclone\n");
  const put = await client(
    "rclone",
    ["copyto", "r.txt", "s:backup-container/r.txt", "--config", "/dev/null"],
    env.backup,
    rcloneRemote,
  );
  expect(put.code, put.output).toBe(0);
  const cat = await client(
    "rclone",
    ["cat", "s:backup-container/r.txt", "--config", "/dev/null"],
    env.backup,
    rcloneRemote,
  );
  expect(cat.code, cat.output).toBe(0);
  expect(cat.output).toBe("over rclone\n");
});

test("a wrong password is refused by Keystone (401), in both clients", async () => {
  const wrong = { ...env.app, OS_PASSWORD: `${env.app.OS_PASSWORD}x` };
  const swift = await client("swift", ["stat"], wrong);
  expect(swift.code).not.toBe(0);
  expect(swift.output).toMatch(/Unauthorized/);
  const rclone = await client(
    "rclone",
    ["lsd", "s:", "--config", "/dev/null", "--retries", "1", "--low-level-retries", "1"],
    wrong,
    rcloneRemote,
  );
  expect(rclone.code).not.toBe(0);
  expect(rclone.output).toMatch(/Authorization Failed/);
});

test("another user's account is refused by Swift (403); its owner still reads it", async () => {
  const auth = await client("swift", ["auth"], env.app);
  const storageUrl = /OS_STORAGE_URL=(\S+)/.exec(auth.output)?.[1];
  expect(storageUrl).toMatch(new RegExp(`/v1/AUTH_${env.app.OS_PROJECT_ID}$`));
  const intruder = await client("swift", ["--os-storage-url", storageUrl!, "list", "app-container"], env.backup);
  expect(intruder.code).not.toBe(0);
  expect(intruder.output).toMatch(/403 Forbidden/);
  const owner = await client("swift", ["list", "app-container"], env.app);
  expect(owner.output.trim()).toBe("hello.txt");
});

test("rotation of an auto-named user (replacementTrigger): the new Swift login works, the old one still does", async () => {
  const deploy = async (rotate: string) => {
    await stack.must([
      "config",
      "set",
      "--path",
      "users",
      JSON.stringify([{ name: "app" }, { name: "backup" }, { name: "rot", rotate }]),
    ]);
    const up = await stack.up();
    printed.push(["pulumi up", up.output]);
    expect(up.code, up.output).toBe(0);
    return (await stack.outputs(true)).credentials.rot.env as Record<string, string>;
  };
  const old = await deploy("1");
  fs.writeFileSync(path.join(work, "rot.txt"), "before rotation\n");
  expect((await client("swift", ["upload", "rot-container", "rot.txt"], old)).code).toBe(0);
  const before = api.users.length;
  const rotated = await deploy("2");
  expect(api.users.length).toBe(before + 1); // one new user, once
  expect(rotated.OS_USERNAME).not.toBe(old.OS_USERNAME);
  expect(rotated.OS_PROJECT_ID).not.toBe(old.OS_PROJECT_ID);
  fs.writeFileSync(path.join(work, "rot.txt"), "after rotation\n");
  expect((await client("swift", ["upload", "rot-container", "rot.txt"], rotated)).code).toBe(0);
  expect((await client("swift", ["download", "rot-container", "rot.txt", "-o", "-"], rotated)).output).toBe(
    "after rotation\n",
  );
  // The API cannot delete: the old login keeps its own account until someone deletes it.
  expect((await client("swift", ["download", "rot-container", "rot.txt", "-o", "-"], old)).output).toBe(
    "before rotation\n",
  );
});

test("the CLI showed none of the Swift credentials (the clients print their account, which is theirs to print)", async () => {
  const shown = await stack.run(["stack", "output", "--json"]);
  const places: Array<[string, string]> = [
    ...printed.filter(([what]) => what === "pulumi up"),
    ["pulumi stack output", shown.output],
  ];
  expect(hits(places, withEncodings(api.users.flatMap(secretsOf)))).toEqual([]);
});
