// The credentials a real `pulumi up` hands out work in real clients: the local API in real mode
// creates each user on versitygw (S3), tools/ftp-server (FTP) and Keystone (v3) with a project of
// its own, served by a real Swift proxy (server/swift-backend.ts). The stack's outputs alone (s3,
// ftp, ftpUrl, env) get a file written and read back, in the AWS SDK, an FTP client,
// python-swiftclient and rclone (both Debian packages, given only the user's `env` output as their
// environment); a wrong secret and another user's bucket, directory or account are refused.
// One real API and one stack serve every test, in order.
import { execFile, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, expect, test } from "vitest";
import { startRealApiServer, RealApiServer } from "../../server/real-backends";
import { swiftMissing } from "../../server/swift-backend";
import { runDemoApp } from "../../scripts/run-app";
import { repoRoot, TestStack } from "../../scripts/stack";
import { nodeBinDir } from "../../scripts/toolchain";
import {
  expectCredentialsWork,
  expectIsolated,
  expectStillReadable,
  IssuedUser,
  Written,
} from "../support/real-clients";
import { hits, secretsOf, withEncodings } from "../support/secrets";

const exec = promisify(execFile);
const token = `real-credentials-${Date.now().toString(36)}`;
let api: RealApiServer;
let stack: TestStack;
let users: Record<string, IssuedUser & { env: Record<string, string> }>;
let work: string;
const written: Record<string, Written> = {};
const cliOutput: string[] = [];

beforeAll(async () => {
  // The global setup installs Swift and Keystone (tools/real-servers/swift.sh); without them this file fails.
  expect(swiftMissing()).toEqual([]);
  work = fs.mkdtempSync(path.join(os.tmpdir(), "psu-real-"));
  api = await startRealApiServer({ token });
  expect(api.backends.swift, "real mode started without Swift").toBeDefined();
  // The demo's program (Pulumi.yaml: examples/from-config), two users.
  stack = await TestStack.create({
    programDir: repoRoot,
    config: {
      "storage:baseUrl": api.url,
      "users[0].name": "app",
      "users[0].userName": "app-real",
      "users[1].name": "backup",
      "users[1].userName": "backup-real",
    },
    secrets: { "storage:accessToken": token },
  });
  const up = await stack.up();
  cliOutput.push(up.output);
  expect(up.code, up.output).toBe(0);
  users = (await stack.outputs(true)).credentials;
});
afterAll(async () => {
  await stack?.dispose();
  await api?.close();
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

test("the outputs are the credentials the API issued, with the real servers' endpoints", () => {
  expect(api.users.map((u) => u.Name).sort()).toEqual(["app-real", "backup-real"]);
  for (const [name, userName] of [
    ["app", "app-real"],
    ["backup", "backup-real"],
  ]) {
    const issued = api.users.find((u) => u.Name === userName)!;
    expect(users[name].s3).toEqual({
      endpoint: api.backends.s3Endpoint,
      accessKey: issued.S3Connection.AccessKey,
      secretKey: issued.S3Connection.SecretKey,
    });
    expect(users[name].ftp).toEqual({
      hostName: api.backends.ftpHostName,
      login: issued.FtpConnection.Login,
      password: issued.FtpConnection.Password,
    });
  }
  expect(api.backends.s3Endpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
});

test("each user writes and reads back over S3 and FTP with its outputs alone; a wrong secret is refused", async () => {
  for (const name of ["app", "backup"]) written[name] = await expectCredentialsWork(users[name]);
});

test("a user cannot reach another user's bucket or FTP files, both ways; the owner still can", async () => {
  expect(Object.keys(written)).toEqual(["app", "backup"]);
  await expectIsolated(users.backup, written.app);
  await expectIsolated(users.app, written.backup);
  await expectStillReadable(users.app, written.app);
  await expectStillReadable(users.backup, written.backup);
});

test("the demo app, given only a user's env output as its environment, writes and reads its file over S3, FTP and Swift", async () => {
  const run = await runDemoApp(users.app.env);
  expect(run.code, run.output).toBe(0);
  expect(run.output).toMatch(/S3 {2}got s3:\/\/demo-app-[0-9a-f]+\/hello\.txt back: same \d+ bytes/);
  expect(run.output).toMatch(
    /FTP got \/hello-[0-9a-f]+\.txt back with FTP_HOST\/FTP_USER\/FTP_PASSWORD: same \d+ bytes/,
  );
  // Swift is served here: the global setup installs it (tools/real-servers/swift.sh).
  expect(run.output).toMatch(/Swift got demo-app-[0-9a-f]+\/hello\.txt back: same \d+ bytes/);
  // It prints what it did with the credentials masked.
  expect(hits([["demo app output", run.output]], withEncodings(api.users.flatMap(secretsOf)))).toEqual([]);
});

test("the demo app fails when a variable it reads is wrong, so its success above means something", async () => {
  const run = await runDemoApp({ ...users.app.env, AWS_SECRET_ACCESS_KEY: `${users.app.env.AWS_SECRET_ACCESS_KEY}x` });
  expect(run.code).toBe(1);
  expect(run.output).toContain("demo app failed: SignatureDoesNotMatch");
  const ftp = await runDemoApp({ ...users.app.env, FTP_URL: users.backup.env.FTP_URL });
  expect(ftp.code).toBe(1);
  expect(ftp.output).toMatch(/demo app failed: FTPError: 550/);
  const swift = await runDemoApp({ ...users.app.env, OS_PASSWORD: `${users.app.env.OS_PASSWORD}x` });
  expect(swift.code).toBe(1);
  expect(swift.output).toMatch(/demo app failed: Error: swift: Unauthorized/);
  expect(swift.output).not.toContain(users.app.env.OS_PASSWORD);
});

test("npm run demo ends with the app writing and reading its file over S3, FTP and Swift, credentials masked", async () => {
  // What `npm run demo` runs after its build; the demo starts its own API and servers.
  const { stdout } = await promisify(execFile)(
    path.join(nodeBinDir(), "node"),
    [path.join(repoRoot, "dist", "scripts", "demo.js")],
    { cwd: repoRoot, maxBuffer: 16 << 20 },
  ).catch((err) => {
    // What the demo printed before it failed (its pulumi output) says why.
    throw new Error(`${err.message}\n${err.stdout ?? ""}`);
  });
  expect(stdout).toMatch(/creating users on S3 http:\/\/127\.0\.0\.1:\d+ \(versitygw\) and FTP 127\.0\.0\.1:\d+/);
  expect(stdout).toMatch(/S3 {2}http:\/\/127\.0\.0\.1:\d+ as \*{8} \(20 chars\), secret \*{8} \(40 chars\)/);
  expect(stdout).toMatch(/S3 {2}got s3:\/\/demo-app-[0-9a-f]+\/hello\.txt back: same \d+ bytes/);
  expect(stdout).toMatch(/FTP got \/hello-[0-9a-f]+\.txt back with FTP_HOST\/FTP_USER\/FTP_PASSWORD: same \d+ bytes/);
  expect(stdout).toMatch(/Swift got demo-app-[0-9a-f]+\/hello\.txt back/);
  expect(stdout).toContain("the app wrote and read its file with the credentials it was given");
});

/** Starts `npm run api` (its compiled entry) and resolves with its first `lines` lines of output. */
function startApiProcess(args: string[], lines: number) {
  const child = spawn(path.join(nodeBinDir(), "node"), [path.join(repoRoot, "dist", "server", "main.js"), ...args], {
    env: { ...process.env, STORAGE_ACCESS_TOKEN: token },
    stdio: ["ignore", "pipe", "inherit"],
  });
  let out = "";
  const ready = new Promise<string>((resolve, reject) => {
    child.stdout.on("data", (c: Buffer) => {
      out += c.toString("utf8");
      if (out.split("\n").length > lines) resolve(out);
    });
    child.once("exit", (code) => reject(new Error(`npm run api exited ${code}: ${out}`)));
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
  return { child, ready, exited };
}

// Real mode through the same entry is test/e2e/consumer-path.test.ts's: examples/README.md's block
// starts `node dist/server/main.js`, deploys against it, and its `kill %1` (a SIGTERM) must stop
// the S3 and FTP servers too. The users real mode creates work in real clients: this file's, on
// startRealApiServer, which that entry calls.
test("npm run api --fake starts no server and says so; SIGTERM ends it", async () => {
  const fake = startApiProcess(["--fake"], 2);
  expect(await fake.ready).toContain("fake mode: the credentials issued work on no server");
  fake.child.kill("SIGTERM");
  expect(await fake.exited).toBe(0);
});

/** The Swift part of each user's env output (OS_*), as python-swiftclient and rclone read it. */
const swiftEnv = () => ({ app: users.app.env, backup: users.backup.env });

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
    return { code: 0, output: r.stdout + r.stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === "number" ? e.code : 1, output: `${e.stdout ?? ""}${e.stderr ?? ""}` };
  }
}
// rclone's backend settings, not credentials: the credentials come from the OS_* variables (env_auth).
const rcloneRemote = { RCLONE_CONFIG_S_TYPE: "swift", RCLONE_CONFIG_S_ENV_AUTH: "true" };

test("the Swift connection is the user's Keystone login: v3 identity URL, project id, user name, password", () => {
  for (const [name, e] of Object.entries(swiftEnv())) {
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
  expect((await client("swift", ["upload", "app-container", "hello.txt"], swiftEnv().app)).code).toBe(0);
  const stat = await client("swift", ["stat", "app-container"], swiftEnv().app);
  expect(stat.code, stat.output).toBe(0);
  expect(stat.output).toMatch(/Objects: 1/);
  expect(stat.output).toContain(`Account: AUTH_${swiftEnv().app.OS_PROJECT_ID}`);
  const got = await client("swift", ["download", "app-container", "hello.txt", "-o", "-"], swiftEnv().app);
  expect(got.code, got.output).toBe(0);
  expect(got.output).toBe(body);
});

test("rclone's swift backend (env_auth) puts and gets an object with env alone", async () => {
  fs.writeFileSync(path.join(work, "r.txt"), "over rclone\n");
  const put = await client(
    "rclone",
    ["copyto", "r.txt", "s:backup-container/r.txt", "--config", "/dev/null"],
    swiftEnv().backup,
    rcloneRemote,
  );
  expect(put.code, put.output).toBe(0);
  const cat = await client(
    "rclone",
    ["cat", "s:backup-container/r.txt", "--config", "/dev/null"],
    swiftEnv().backup,
    rcloneRemote,
  );
  expect(cat.code, cat.output).toBe(0);
  expect(cat.output).toBe("over rclone\n");
});

test("a wrong password is refused by Keystone (401), in both clients", async () => {
  const wrong = { ...swiftEnv().app, OS_PASSWORD: `${swiftEnv().app.OS_PASSWORD}x` };
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
  const auth = await client("swift", ["auth"], swiftEnv().app);
  const storageUrl = /OS_STORAGE_URL=(\S+)/.exec(auth.output)?.[1];
  expect(storageUrl).toMatch(new RegExp(`/v1/AUTH_${swiftEnv().app.OS_PROJECT_ID}$`));
  const intruder = await client("swift", ["--os-storage-url", storageUrl!, "list", "app-container"], swiftEnv().backup);
  expect(intruder.code).not.toBe(0);
  expect(intruder.output).toMatch(/403 Forbidden/);
  const owner = await client("swift", ["list", "app-container"], swiftEnv().app);
  expect(owner.output.trim()).toBe("hello.txt");
});

test("rotation of an auto-named user (from-config's rotate, a replacementTrigger): the new credentials work in S3, FTP and Swift, the old ones still do", async () => {
  const deploy = async (rotate: string) => {
    await stack.must([
      "config",
      "set",
      "--path",
      "users",
      JSON.stringify([
        { name: "app", userName: "app-real" },
        { name: "backup", userName: "backup-real" },
        { name: "rot", rotate },
      ]),
    ]);
    const up = await stack.up();
    cliOutput.push(up.output);
    expect(up.code, up.output).toBe(0);
    return (await stack.outputs(true)).credentials.rot as IssuedUser & {
      userName: string;
      env: Record<string, string>;
    };
  };
  const old = await deploy("1");
  const before = api.users.length;
  const oldWritten = await expectCredentialsWork(old);
  fs.writeFileSync(path.join(work, "rot.txt"), "before rotation\n");
  expect((await client("swift", ["upload", "rot-container", "rot.txt"], old.env)).code).toBe(0);
  const rotated = await deploy("2");
  expect(api.users.length).toBe(before + 1); // one new user, once
  expect(rotated.userName).toMatch(/^rot-[0-9a-f]{7}$/);
  expect(rotated.userName).not.toBe(old.userName);
  expect(rotated.s3.secretKey).not.toBe(old.s3.secretKey);
  expect(rotated.env.OS_USERNAME).not.toBe(old.env.OS_USERNAME);
  expect(rotated.env.OS_PROJECT_ID).not.toBe(old.env.OS_PROJECT_ID);
  await expectCredentialsWork(rotated);
  fs.writeFileSync(path.join(work, "rot.txt"), "after rotation\n");
  expect((await client("swift", ["upload", "rot-container", "rot.txt"], rotated.env)).code).toBe(0);
  expect((await client("swift", ["download", "rot-container", "rot.txt", "-o", "-"], rotated.env)).output).toBe(
    "after rotation\n",
  );
  // The API cannot delete: the old user keeps working until someone deletes it on the service.
  await expectStillReadable(old, oldWritten);
  await expectIsolated(rotated, oldWritten);
  expect((await client("swift", ["download", "rot-container", "rot.txt", "-o", "-"], old.env)).output).toBe(
    "before rotation\n",
  );
});

test("state and every CLI output, `stack output --json` included, hold none of the real-mode secrets, reserved characters included (the clients print their account, which is theirs to print)", async () => {
  // Real mode issues `+ /` in S3 secrets and `@:/%#?` in FTP passwords.
  expect(api.users.every((u) => /[@:/%#?]/.test(u.FtpConnection.Password))).toBe(true);
  const shown = await stack.run(["stack", "output", "--json"]);
  const needles = [...withEncodings(api.users.flatMap(secretsOf)), ["token", token] as [string, string]];
  expect(
    hits(
      [
        ["state", stack.stateFileText()],
        ["pulumi stack output", shown.output],
        ...cliOutput.map((o, i): [string, string] => [`cli output ${i}`, o]),
      ],
      needles,
    ),
  ).toEqual([]);
});
