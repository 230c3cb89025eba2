/**
 * The application at the end of `npm run demo`: it knows nothing of Pulumi and gets only a
 * StorageUser's `env` output as its environment, the way examples/app-config hands it over. It
 * writes a file and reads it back over S3 (AWS SDK v3, which reads AWS_ACCESS_KEY_ID,
 * AWS_SECRET_ACCESS_KEY and AWS_ENDPOINT_URL_S3 itself) and over FTP (basic-ftp: FTP_URL to
 * upload, FTP_HOST/FTP_USER/FTP_PASSWORD to download) and over Swift (python-swiftclient's
 * `swift`, which reads the OS_* variables itself). Prints what it did, credentials masked; exits
 * non-zero on any failure. test/e2e/real-credentials.test.ts runs it the same way.
 */
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { promisify } from "node:util";
import { PassThrough, Readable } from "node:stream";
import { CreateBucketCommand, GetObjectCommand, PutObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { Client as FtpClient } from "basic-ftp";

const need = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: give the app the StorageUser's env output`);
  return value;
};
const masked = (value: string) => `${"*".repeat(8)} (${value.length} chars)`;

async function overS3(content: string): Promise<void> {
  need("AWS_ACCESS_KEY_ID");
  need("AWS_SECRET_ACCESS_KEY");
  const endpoint = need("AWS_ENDPOINT_URL_S3");
  // What the env output leaves to the app (examples/README.md): a region and path-style addressing.
  const s3 = new S3Client({ region: process.env.AWS_REGION ?? "us-east-1", forcePathStyle: true });
  const bucket = `demo-app-${randomBytes(4).toString("hex")}`;
  console.log(
    `S3  ${endpoint} as ${masked(process.env.AWS_ACCESS_KEY_ID!)}, secret ${masked(process.env.AWS_SECRET_ACCESS_KEY!)}`,
  );
  await s3.send(new CreateBucketCommand({ Bucket: bucket }));
  await s3.send(new PutObjectCommand({ Bucket: bucket, Key: "hello.txt", Body: content }));
  console.log(`S3  put s3://${bucket}/hello.txt (${content.length} bytes)`);
  const got = await (
    await s3.send(new GetObjectCommand({ Bucket: bucket, Key: "hello.txt" }))
  ).Body!.transformToString();
  if (got !== content) throw new Error(`S3 read back ${JSON.stringify(got)}, wrote ${JSON.stringify(content)}`);
  console.log(`S3  got s3://${bucket}/hello.txt back: same ${got.length} bytes`);
  s3.destroy();
}

/** FTP_HOST is a host name, or host:port when the service listens elsewhere than 21. */
function hostAndPort(host: string): { host: string; port: number } {
  const url = new URL(`ftp://${host}`);
  return { host: url.hostname, port: Number(url.port || 21) };
}

async function overFtp(content: string): Promise<void> {
  const url = new URL(need("FTP_URL"));
  const file = `hello-${randomBytes(4).toString("hex")}.txt`;
  const up = new FtpClient(15_000);
  try {
    await up.access({
      host: url.hostname,
      port: Number(url.port || 21),
      user: decodeURIComponent(url.username),
      password: decodeURIComponent(url.password),
    });
    console.log(
      `FTP ${url.host} from FTP_URL as ${masked(decodeURIComponent(url.username))}, password ${masked(decodeURIComponent(url.password))}`,
    );
    await up.uploadFrom(Readable.from([content]), file);
    console.log(`FTP put /${file} (${content.length} bytes)`);
  } finally {
    up.close();
  }
  const down = new FtpClient(15_000);
  try {
    await down.access({ ...hostAndPort(need("FTP_HOST")), user: need("FTP_USER"), password: need("FTP_PASSWORD") });
    const sink = new PassThrough();
    const chunks: Buffer[] = [];
    sink.on("data", (c: Buffer) => chunks.push(c));
    await down.downloadTo(sink, file);
    const got = Buffer.concat(chunks).toString("utf8");
    if (got !== content) throw new Error(`FTP read back ${JSON.stringify(got)}, wrote ${JSON.stringify(content)}`);
    console.log(`FTP got /${file} back with FTP_HOST/FTP_USER/FTP_PASSWORD: same ${got.length} bytes`);
  } finally {
    down.close();
  }
}

/**
 * python-swiftclient, a Debian package, run with the app's environment: it reads OS_AUTH_URL,
 * OS_IDENTITY_API_VERSION, OS_USER_DOMAIN_NAME, OS_USERNAME, OS_PASSWORD and OS_PROJECT_ID.
 * Without a Keystone v3 login in env (the local API makes Swift credentials up where Swift is
 * not installed: docs/real-servers.md) there is nothing to try.
 */
async function overSwift(content: string): Promise<void> {
  const swift = ["/usr/bin/swift", "/usr/local/bin/swift"].find((p) => fs.existsSync(p));
  if (process.env.OS_IDENTITY_API_VERSION !== "3" || !swift) {
    console.log(
      `Swift skipped: ${swift ? "no Keystone v3 login in env (Swift is not served by this API)" : "python-swiftclient is not installed"}`,
    );
    return;
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "demo-app-swift-"));
  const run = (...args: string[]) =>
    promisify(execFile)(swift, args, {
      cwd: dir,
      env: { ...process.env, PATH: "/usr/bin:/bin", HOME: dir },
      timeout: 60_000,
    });
  try {
    const container = `demo-app-${randomBytes(4).toString("hex")}`;
    console.log(
      `Swift ${need("OS_AUTH_URL")} as ${masked(need("OS_USERNAME"))}, password ${masked(need("OS_PASSWORD"))}`,
    );
    fs.writeFileSync(path.join(dir, "hello.txt"), content);
    await run("upload", container, "hello.txt");
    console.log(`Swift put ${container}/hello.txt (${content.length} bytes)`);
    const got = (await run("download", container, "hello.txt", "-o", "-")).stdout;
    if (got !== content) throw new Error(`Swift read back ${JSON.stringify(got)}, wrote ${JSON.stringify(content)}`);
    console.log(`Swift got ${container}/hello.txt back: same ${got.length} bytes`);
  } catch (err) {
    // The client's own message (e.g. "Unauthorized. Check username/id, password …"), never the password.
    const e = err as { stderr?: string };
    // eslint-disable-next-line preserve-caught-error -- the client's error keeps its whole output; only its last line is meant to surface
    throw new Error(`swift: ${(e.stderr ?? String(err)).trim().split("\n").pop()}`);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function main() {
  const content = `written by the demo app at ${new Date().toISOString()}\n`;
  await overS3(content);
  await overFtp(content);
  await overSwift(content);
  console.log("the app wrote and read its file with the credentials it was given");
}

main().catch((err) => {
  // SDK errors carry the request, never the secret; the message and code are enough.
  console.error(
    `demo app failed: ${(err as Error | undefined)?.name ?? "Error"}: ${err instanceof Error ? err.message : err}`,
  );
  process.exit(1);
});
