// The credentials a real `pulumi up` hands out work in real clients (AWS SDK, FTP, python-swiftclient,
// rclone) against the local API's real mode (versitygw, the FTP server, Keystone and Swift), with the
// stack's outputs alone; a wrong secret and another user's data are refused; a rotation's new
// credentials work and the old still do. One real API and one stack, its state in an S3 bucket of the
// same versitygw; then `npm run demo -- --swift`.
import { randomBytes } from "node:crypto";
import { PassThrough, Readable } from "node:stream";
import {
  CreateBucketCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from "@aws-sdk/client-s3";
import { Client as FtpClient, FTPError } from "basic-ftp";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { startRealApiServer, RealApiServer } from "../../server/real-backends";
import { swiftMissing } from "../../server/swift-backend";
import { runDemoApp } from "../../scripts/run-app";
import { repoRoot, TestStack } from "../../scripts/stack";
import { nodeBinDir } from "../../scripts/toolchain";
import { hits, secretsOf, withEncodings } from "../support/secrets";
import { ok, run } from "../support/cli-project";

/** The outputs of one StorageUser that these checks read (as `pulumi stack output --show-secrets` gives them). */
interface IssuedUser {
  s3: { endpoint: string; accessKey: string; secretKey: string };
  ftp: { hostName: string; login: string; password: string };
  ftpUrl: string;
}

/** What expectCredentialsWork left on the servers, for a later check to read back; ftpHome, the owner's FTP home. */
type Written = Record<"bucket" | "key" | "ftpFile" | "ftpHome" | "content", string>;

const s3Of = ({ endpoint, accessKey: accessKeyId, secretKey }: IssuedUser["s3"], secretAccessKey = secretKey) =>
  new S3Client({
    endpoint,
    region: "us-east-1",
    forcePathStyle: true,
    maxAttempts: 1,
    credentials: { accessKeyId, secretAccessKey },
  });

const s3Text = async (s3: S3Client, w: Written) =>
  (await s3.send(new GetObjectCommand({ Bucket: w.bucket, Key: w.key }))).Body!.transformToString();

/** Runs `use` with a client logged in as the URL's user (or with `password`), then closes it. */
async function withFtp<T>(url: URL, use: (c: FtpClient) => Promise<T>, password = decodeURIComponent(url.password)) {
  const client = new FtpClient(15_000);
  try {
    const user = decodeURIComponent(url.username);
    await client.access({ host: url.hostname, port: Number(url.port || 21), user, password });
    return await use(client);
  } finally {
    client.close();
  }
}

async function ftpRead(client: FtpClient, file: string): Promise<string> {
  const chunks: Buffer[] = [];
  const sink = new PassThrough().on("data", (c: Buffer) => chunks.push(c));
  await client.downloadTo(sink, file);
  return Buffer.concat(chunks).toString("utf8");
}

/** How `run` was refused: S3's status and code, or FTP's reply code; fails the test when it succeeds. */
async function refusal(run: () => Promise<unknown>): Promise<string | number> {
  const err: unknown = await run().then(
    () => undefined,
    (e: unknown) => e,
  );
  if (err instanceof FTPError) return err.code;
  expect(err, "the call was expected to be refused").toBeInstanceOf(S3ServiceException);
  return `${(err as S3ServiceException).$metadata.httpStatusCode} ${(err as S3ServiceException).name}`;
}

/**
 * S3 create-bucket/put/get and FTP upload (login from `ftpUrl`) and download (login from `ftp`)
 * succeed with the user's outputs; the same login with a wrong secret is refused on both.
 */
async function expectCredentialsWork(user: IssuedUser): Promise<Written> {
  const w: Written = {
    bucket: `t-${randomBytes(6).toString("hex")}`,
    key: "proof.txt",
    ftpFile: `proof-${randomBytes(4).toString("hex")}.txt`,
    ftpHome: user.ftp.login,
    content: `written ${new Date().toISOString()} ${randomBytes(8).toString("hex")}`,
  };
  const s3 = s3Of(user.s3);
  try {
    await s3.send(new CreateBucketCommand({ Bucket: w.bucket }));
    await s3.send(new PutObjectCommand({ Bucket: w.bucket, Key: w.key, Body: w.content }));
    expect(await s3Text(s3, w)).toBe(w.content);
  } finally {
    s3.destroy();
  }
  const wrongKey = `${user.s3.secretKey.slice(0, -1)}${user.s3.secretKey.endsWith("A") ? "B" : "A"}`;
  const wrongS3 = s3Of(user.s3, wrongKey);
  expect(await refusal(() => wrongS3.send(new GetObjectCommand({ Bucket: w.bucket, Key: w.key })))).toBe(
    "403 SignatureDoesNotMatch",
  );
  wrongS3.destroy();

  const url = new URL(user.ftpUrl);
  expect(url.host).toBe(user.ftp.hostName);
  await withFtp(url, (c) => c.uploadFrom(Readable.from([w.content]), w.ftpFile));
  const asLogin = new URL(`ftp://${user.ftp.hostName}`);
  [asLogin.username, asLogin.password] = [encodeURIComponent(user.ftp.login), encodeURIComponent(user.ftp.password)];
  expect(await withFtp(asLogin, (c) => ftpRead(c, w.ftpFile))).toBe(w.content);
  expect(await refusal(() => withFtp(url, async () => undefined, `${user.ftp.password}x`))).toBe(530);
  return w;
}

/** What `w` (by `owner`) holds can still be read with `owner`'s credentials. */
async function expectStillReadable(owner: IssuedUser, w: Written): Promise<void> {
  const s3 = s3Of(owner.s3);
  try {
    expect(await s3Text(s3, w)).toBe(w.content);
  } finally {
    s3.destroy();
  }
  expect(await withFtp(new URL(owner.ftpUrl), (c) => ftpRead(c, w.ftpFile))).toBe(w.content);
}

/** `intruder` can neither read nor write the bucket, nor reach the FTP files, that `w` holds. */
async function expectIsolated(intruder: IssuedUser, w: Written): Promise<void> {
  const s3 = s3Of(intruder.s3);
  try {
    for (const command of [
      new GetObjectCommand({ Bucket: w.bucket, Key: w.key }),
      new PutObjectCommand({ Bucket: w.bucket, Key: "intruder.txt", Body: "x" }),
      new ListObjectsV2Command({ Bucket: w.bucket }),
    ])
      expect(await refusal(() => s3.send(command as GetObjectCommand))).toBe("403 AccessDenied");
  } finally {
    s3.destroy();
  }
  await withFtp(new URL(intruder.ftpUrl), async (ftp) => {
    expect((await ftp.list("/")).map((f) => f.name)).not.toContain(w.ftpFile);
    // The owner's home is <root>/<login>, a sibling of the intruder's: every way up ends in its own home.
    for (const up of ["", "../", "/../", "/../../ftp/"]) {
      const where = up ? `${up}${w.ftpHome}/${w.ftpFile}` : w.ftpFile;
      expect(await refusal(() => ftpRead(ftp, where)), where).toBe(550);
    }
  });
}

const token = `real-credentials-${Date.now().toString(36)}`;
type User = IssuedUser & { userName: string; env: Record<string, string> };
let api: RealApiServer;
let stack: TestStack;
let users: Record<string, User>;
let work: string;
/** The S3 bucket that holds the stack's state. */
let state: S3Client;
const cliOutput: string[] = [];
const deploy = async (rotate: string) => {
  const list = JSON.stringify([
    { name: "app", userName: "app-real" },
    { name: "backup", userName: "backup-real" },
    { name: "rot", rotate },
  ]);
  await stack.must(["config", "set", "--path", "users", list]);
  cliOutput.push(ok(await stack.up()).output);
  return (await stack.outputs(true)).credentials as Record<string, User>;
};

beforeAll(async () => {
  // .ci/run installs Swift and Keystone (tools/real-servers/swift.sh --install); without them this file fails.
  expect(swiftMissing()).toEqual([]);
  work = fs.mkdtempSync(path.join(os.tmpdir(), "psu-real-"));
  api = await startRealApiServer({ token });
  expect(api.backends.swift, "real mode started without Swift").toBeDefined();
  // The state bucket's own account, as a team's CI has one; not a StorageUser.
  const accessKeyId = `STATE${Date.now().toString(36).toUpperCase()}`;
  const secretAccessKey = randomBytes(24).toString("hex");
  await api.backends.createS3Account(accessKeyId, secretAccessKey);
  const endpoint = api.backends.s3Endpoint;
  state = s3Of({ endpoint, accessKey: accessKeyId, secretKey: secretAccessKey });
  await state.send(new CreateBucketCommand({ Bucket: "pulumi-state" }));
  // The demo's program (Pulumi.yaml: examples/from-config); `rot` is auto-named and rotated below.
  stack = await TestStack.create({
    programDir: repoRoot,
    config: { "storage:baseUrl": api.url },
    secrets: { "storage:accessToken": token },
    // `pulumi login 's3://…'`, per command.
    env: {
      PULUMI_BACKEND_URL: `s3://pulumi-state?endpoint=${new URL(endpoint).host}&s3ForcePathStyle=true&disableSSL=true`,
      AWS_ACCESS_KEY_ID: accessKeyId,
      AWS_SECRET_ACCESS_KEY: secretAccessKey,
      AWS_REGION: "us-east-1",
    },
  });
  users = await deploy("1");
});
afterAll(async () => {
  await stack?.dispose();
  state?.destroy();
  await api?.close();
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

/** A client with the user's env as its whole environment, besides where to find programs and a home. */
const client = (cmd: string, args: string[], userEnv: Record<string, string>, extra: Record<string, string> = {}) =>
  run(cmd, args, { cwd: work, env: { PATH: "/usr/bin:/bin", HOME: work, ...userEnv, ...extra } });
const swift = (args: string[], env: Record<string, string>) => client("swift", args, env);
// rclone's backend settings, not credentials: the credentials come from the OS_* variables (env_auth).
const rclone = (args: string[], env: Record<string, string>) =>
  client("rclone", [...args, "--config", "/dev/null"], env, {
    RCLONE_CONFIG_S_TYPE: "swift",
    RCLONE_CONFIG_S_ENV_AUTH: "true",
  });

test("the outputs are the credentials the API issued; each user writes and reads back over S3 and FTP with them alone; a wrong secret is refused; neither reaches the other's bucket or files", async () => {
  expect(api.backends.s3Endpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  for (const [name, userName] of [
    ["app", "app-real"],
    ["backup", "backup-real"],
  ]) {
    const issued = api.users.find((u) => u.Name === userName)!;
    const { AccessKey: accessKey, SecretKey: secretKey } = issued.S3Connection;
    expect(users[name].s3).toEqual({ endpoint: api.backends.s3Endpoint, accessKey, secretKey });
    const { Login: login, Password: password } = issued.FtpConnection;
    expect(users[name].ftp).toEqual({ hostName: api.backends.ftpHostName, login, password });
  }
  const written: Record<string, Written> = {};
  for (const name of ["app", "backup"]) written[name] = await expectCredentialsWork(users[name]);
  await expectIsolated(users.backup, written.app);
  await expectIsolated(users.app, written.backup);
  for (const name of ["app", "backup"]) await expectStillReadable(users[name], written[name]);
});

test("Swift: `env` is the user's Keystone login; python-swiftclient and rclone put and get an object with it alone; a wrong password is refused (401) by both, another user's account (403)", async () => {
  const [app, backup] = [users.app.env, users.backup.env];
  for (const e of [app, backup]) {
    const issued = api.users.find((u) => u.SwiftApiConnection.Password === e.OS_PASSWORD)!;
    expect(e).toMatchObject({
      OS_AUTH_URL: api.backends.swift!.authUrl,
      OS_PROJECT_ID: issued.SwiftApiConnection.TenantId,
      OS_USERNAME: issued.SwiftApiConnection.AccessKey,
      OS_IDENTITY_API_VERSION: "3",
      OS_USER_DOMAIN_NAME: "Default",
    });
    expect(e.OS_AUTH_URL).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v3$/);
  }
  const body = `swift object of ${Date.now()}\n`;
  fs.writeFileSync(path.join(work, "hello.txt"), body);
  ok(await swift(["upload", "app-container", "hello.txt"], app));
  const stat = await swift(["stat", "app-container"], app);
  expect(stat.output).toMatch(/Objects: 1/);
  expect(stat.output).toContain(`Account: AUTH_${app.OS_PROJECT_ID}`);
  expect((await swift(["download", "app-container", "hello.txt", "-o", "-"], app)).output).toBe(body);
  fs.writeFileSync(path.join(work, "r.txt"), "over rclone\n");
  ok(await rclone(["copyto", "r.txt", "s:backup-container/r.txt"], backup));
  expect((await rclone(["cat", "s:backup-container/r.txt"], backup)).output).toBe("over rclone\n");
  const wrong = { ...app, OS_PASSWORD: `${app.OS_PASSWORD}x` };
  const refused = [
    await swift(["stat"], wrong),
    await rclone(["lsd", "s:", "--retries", "1", "--low-level-retries", "1"], wrong),
  ];
  expect(refused.map((r) => r.code !== 0)).toEqual([true, true]);
  expect(refused[0].output).toMatch(/Unauthorized/);
  expect(refused[1].output).toMatch(/Authorization Failed/);
  const storageUrl = /OS_STORAGE_URL=(\S+)/.exec((await swift(["auth"], app)).output)![1];
  expect(storageUrl).toMatch(new RegExp(`/v1/AUTH_${app.OS_PROJECT_ID}$`));
  const intruder = await swift(["--os-storage-url", storageUrl, "list", "app-container"], backup);
  expect(intruder.output).toMatch(/403 Forbidden/);
  expect((await swift(["list", "app-container"], app)).output.trim()).toBe("hello.txt");
});

test("rotation of an auto-named user (from-config's rotate, a replacementTrigger): the new credentials work in S3, FTP and Swift, the old ones still do", async () => {
  const old = users.rot;
  const before = api.users.length;
  const oldWritten = await expectCredentialsWork(old);
  fs.writeFileSync(path.join(work, "rot.txt"), "before rotation\n");
  ok(await swift(["upload", "rot-container", "rot.txt"], old.env));
  const rotated = (await deploy("2")).rot;
  expect(api.users.length).toBe(before + 1); // one new user, once
  expect(rotated.userName).toMatch(/^rot-[0-9a-f]{7}$/);
  const fields = (u: User) => [u.userName, u.s3.secretKey, u.env.OS_USERNAME, u.env.OS_PROJECT_ID];
  fields(rotated).forEach((v, i) => expect(v).not.toBe(fields(old)[i]));
  await expectCredentialsWork(rotated);
  fs.writeFileSync(path.join(work, "rot.txt"), "after rotation\n");
  ok(await swift(["upload", "rot-container", "rot.txt"], rotated.env));
  expect((await swift(["download", "rot-container", "rot.txt", "-o", "-"], rotated.env)).output).toBe(
    "after rotation\n",
  );
  // The API cannot delete: the old user keeps working until someone deletes it on the service.
  await expectStillReadable(old, oldWritten);
  await expectIsolated(rotated, oldWritten);
  expect((await swift(["download", "rot-container", "rot.txt", "-o", "-"], old.env)).output).toBe("before rotation\n");
});

test("the state bucket, its history and backups included, and every CLI output hold none of the real-mode secrets, reserved characters included", async () => {
  // Real mode issues `+ /` in S3 secrets and `@:/%#?` in FTP passwords. (The clients print their account: theirs to print.)
  expect(api.users.every((u) => /[@:/%#?]/.test(u.FtpConnection.Password))).toBe(true);
  expect(stack.stateFileText()).toBe(""); // nothing went to the file backend
  const objects: Array<[string, string]> = [];
  for (const o of (await state.send(new ListObjectsV2Command({ Bucket: "pulumi-state" }))).Contents ?? []) {
    const body = await state.send(new GetObjectCommand({ Bucket: "pulumi-state", Key: o.Key }));
    objects.push([
      `s3://pulumi-state/${o.Key}`,
      Buffer.from(await body.Body!.transformToByteArray()).toString("latin1"),
    ]);
  }
  expect(objects.find(([k]) => k.endsWith(`stacks/storage-users/${stack.stackName}.json`))?.[1]).toContain(
    "StorageUser",
  );
  expect(objects.filter(([k]) => k.includes("/history/")).length).toBeGreaterThanOrEqual(2 * 2); // an entry and a checkpoint per up
  const shown = await stack.run(["stack", "output", "--json"]);
  const places = [
    ...objects,
    ["pulumi stack output", shown.output],
    ...cliOutput.map((o, i): [string, string] => [`up ${i}`, o]),
  ];
  expect(
    hits(places as Array<[string, string]>, withEncodings([["token", token], ...api.users.flatMap(secretsOf)])),
  ).toEqual([]);
});

test("the demo app fails when a variable it reads is wrong, so the demo's success below means something", async () => {
  const env = users.app.env;
  const s3 = await runDemoApp({ ...env, AWS_SECRET_ACCESS_KEY: `${env.AWS_SECRET_ACCESS_KEY}x` });
  expect([s3.code, s3.output]).toEqual([1, expect.stringContaining("demo app failed: SignatureDoesNotMatch")]);
  const ftp = await runDemoApp({ ...env, FTP_URL: users.backup.env.FTP_URL });
  expect([ftp.code, ftp.output]).toEqual([1, expect.stringMatching(/demo app failed: FTPError: 550/)]);
  const sw = await runDemoApp({ ...env, OS_PASSWORD: `${env.OS_PASSWORD}x` });
  expect([sw.code, sw.output]).toEqual([1, expect.stringMatching(/demo app failed: Error: swift: Unauthorized/)]);
  expect(sw.output).not.toContain(env.OS_PASSWORD);
});

test("npm run demo -- --swift ends with an app given only a user's env writing and reading its file over S3, FTP and Swift, credentials masked", async () => {
  // What `npm run demo -- --swift` runs after its build (Swift is installed: beforeAll); the demo starts its own API and servers.
  const stdout = ok(
    await run(path.join(nodeBinDir(), "node"), [path.join(repoRoot, "dist", "scripts", "demo.js"), "--swift"], {
      cwd: repoRoot,
    }),
  ).output;
  expect(stdout).toMatch(/creating users on S3 http:\/\/127\.0\.0\.1:\d+ \(versitygw\) and FTP 127\.0\.0\.1:\d+/);
  expect(stdout).toMatch(/S3 {2}http:\/\/127\.0\.0\.1:\d+ as \*{8} \(20 chars\), secret \*{8} \(40 chars\)/);
  expect(stdout).toMatch(/S3 {2}got s3:\/\/demo-app-[0-9a-f]+\/hello\.txt back: same \d+ bytes/);
  expect(stdout).toMatch(/FTP got \/hello-[0-9a-f]+\.txt back with FTP_HOST\/FTP_USER\/FTP_PASSWORD: same \d+ bytes/);
  expect(stdout).toMatch(/Swift got demo-app-[0-9a-f]+\/hello\.txt back/);
  expect(stdout).toContain("the app wrote and read its file with the credentials it was given");
});
