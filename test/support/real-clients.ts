// What a StorageUser's outputs are worth to real clients: S3 (AWS SDK v3) and FTP (basic-ftp)
// against the local API's real servers (server/real-backends.ts), using nothing but the outputs.
// Per user, so a rotation test can check the new credentials and the old ones alike.
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
import { expect } from "vitest";

/** The outputs of one StorageUser that these checks read (as `pulumi stack output --show-secrets` gives them). */
export interface IssuedUser {
  s3: { endpoint: string; accessKey: string; secretKey: string };
  ftp: { hostName: string; login: string; password: string };
  ftpUrl: string;
}

/** What expectCredentialsWork left on the servers: the proof a later check can read back. */
export interface Written {
  bucket: string;
  key: string;
  ftpFile: string;
  /** The owner's FTP login: its home directory's name on the server. */
  ftpHome: string;
  content: string;
}

const s3Of = (s3: IssuedUser["s3"], secretKey = s3.secretKey) =>
  new S3Client({
    endpoint: s3.endpoint,
    region: "us-east-1",
    forcePathStyle: true,
    maxAttempts: 1,
    credentials: { accessKeyId: s3.accessKey, secretAccessKey: secretKey },
  });

async function ftpLogin(url: URL, password = decodeURIComponent(url.password)): Promise<FtpClient> {
  const client = new FtpClient(15_000);
  try {
    await client.access({
      host: url.hostname,
      port: Number(url.port || 21),
      user: decodeURIComponent(url.username),
      password,
    });
    return client;
  } catch (err) {
    client.close();
    throw err;
  }
}

async function ftpRead(client: FtpClient, file: string): Promise<string> {
  const sink = new PassThrough();
  const chunks: Buffer[] = [];
  sink.on("data", (c: Buffer) => chunks.push(c));
  await client.downloadTo(sink, file);
  return Buffer.concat(chunks).toString("utf8");
}

/** The S3 error of `run`, as status and code; fails the test when it succeeds. */
async function s3Refusal(run: () => Promise<unknown>): Promise<string> {
  const err = await run().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err, "the S3 call was expected to be refused").toBeInstanceOf(S3ServiceException);
  const e = err as S3ServiceException;
  return `${e.$metadata.httpStatusCode} ${e.name}`;
}

/** The FTP reply code of `run`; fails the test when it succeeds. */
async function ftpRefusal(run: () => Promise<unknown>): Promise<number> {
  const err = await run().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err, "the FTP command was expected to be refused").toBeInstanceOf(FTPError);
  return (err as FTPError).code;
}

/**
 * S3 create-bucket/put/get and FTP upload (login from `ftpUrl`) and download (login from `ftp`)
 * succeed with the user's outputs; the same login with a wrong secret is refused on both.
 */
export async function expectCredentialsWork(user: IssuedUser): Promise<Written> {
  const written: Written = {
    bucket: `t-${randomBytes(6).toString("hex")}`,
    key: "proof.txt",
    ftpFile: `proof-${randomBytes(4).toString("hex")}.txt`,
    ftpHome: user.ftp.login,
    content: `written ${new Date().toISOString()} ${randomBytes(8).toString("hex")}`,
  };
  const s3 = s3Of(user.s3);
  try {
    await s3.send(new CreateBucketCommand({ Bucket: written.bucket }));
    await s3.send(new PutObjectCommand({ Bucket: written.bucket, Key: written.key, Body: written.content }));
    const got = await s3.send(new GetObjectCommand({ Bucket: written.bucket, Key: written.key }));
    expect(await got.Body!.transformToString()).toBe(written.content);
  } finally {
    s3.destroy();
  }
  const wrongS3 = s3Of(user.s3, `${user.s3.secretKey.slice(0, -1)}${user.s3.secretKey.endsWith("A") ? "B" : "A"}`);
  expect(await s3Refusal(() => wrongS3.send(new GetObjectCommand({ Bucket: written.bucket, Key: written.key })))).toBe(
    "403 SignatureDoesNotMatch",
  );
  wrongS3.destroy();

  const url = new URL(user.ftpUrl);
  expect(url.host).toBe(user.ftp.hostName);
  const up = await ftpLogin(url);
  try {
    await up.uploadFrom(Readable.from([written.content]), written.ftpFile);
  } finally {
    up.close();
  }
  const [host, port] = [new URL(`ftp://${user.ftp.hostName}`).hostname, new URL(`ftp://${user.ftp.hostName}`).port];
  const down = new FtpClient(15_000);
  try {
    await down.access({ host, port: Number(port || 21), user: user.ftp.login, password: user.ftp.password });
    expect(await ftpRead(down, written.ftpFile)).toBe(written.content);
  } finally {
    down.close();
  }
  expect(await ftpRefusal(() => ftpLogin(url, `${user.ftp.password}x`))).toBe(530);
  return written;
}

/** What `written` (by `owner`) holds can still be read with `owner`'s credentials. */
export async function expectStillReadable(owner: IssuedUser, written: Written): Promise<void> {
  const s3 = s3Of(owner.s3);
  try {
    expect(
      await (
        await s3.send(new GetObjectCommand({ Bucket: written.bucket, Key: written.key }))
      ).Body!.transformToString(),
    ).toBe(written.content);
  } finally {
    s3.destroy();
  }
  const ftp = await ftpLogin(new URL(owner.ftpUrl));
  try {
    expect(await ftpRead(ftp, written.ftpFile)).toBe(written.content);
  } finally {
    ftp.close();
  }
}

/** `intruder` can neither read nor write the bucket, nor reach the FTP files, that `written` holds. */
export async function expectIsolated(intruder: IssuedUser, written: Written): Promise<void> {
  const s3 = s3Of(intruder.s3);
  try {
    expect(await s3Refusal(() => s3.send(new GetObjectCommand({ Bucket: written.bucket, Key: written.key })))).toBe(
      "403 AccessDenied",
    );
    expect(
      await s3Refusal(() => s3.send(new PutObjectCommand({ Bucket: written.bucket, Key: "intruder.txt", Body: "x" }))),
    ).toBe("403 AccessDenied");
    expect(await s3Refusal(() => s3.send(new ListObjectsV2Command({ Bucket: written.bucket })))).toBe(
      "403 AccessDenied",
    );
  } finally {
    s3.destroy();
  }
  const ftp = await ftpLogin(new URL(intruder.ftpUrl));
  try {
    expect((await ftp.list("/")).map((f) => f.name)).not.toContain(written.ftpFile);
    // The owner's home is <root>/<login>, a sibling of the intruder's: every way up ends in its own home.
    for (const where of [
      written.ftpFile,
      `../${written.ftpHome}/${written.ftpFile}`,
      `/../${written.ftpHome}/${written.ftpFile}`,
      `/../../ftp/${written.ftpHome}/${written.ftpFile}`,
    ]) {
      expect(await ftpRefusal(() => ftpRead(ftp, where)), where).toBe(550);
    }
  } finally {
    ftp.close();
  }
}
