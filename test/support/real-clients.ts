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

/** What expectCredentialsWork left on the servers, for a later check to read back. */
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

/** Runs `use` with a client logged in as the URL's user (or with `password`), then closes it. */
async function withFtp<T>(url: URL, use: (c: FtpClient) => Promise<T>, password = decodeURIComponent(url.password)) {
  const client = new FtpClient(15_000);
  try {
    await client.access({
      host: url.hostname,
      port: Number(url.port || 21),
      user: decodeURIComponent(url.username),
      password,
    });
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
  const err = await run().then(
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
export async function expectCredentialsWork(user: IssuedUser): Promise<Written> {
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
    expect(
      await (await s3.send(new GetObjectCommand({ Bucket: w.bucket, Key: w.key }))).Body!.transformToString(),
    ).toBe(w.content);
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
export async function expectStillReadable(owner: IssuedUser, w: Written): Promise<void> {
  const s3 = s3Of(owner.s3);
  try {
    expect(
      await (await s3.send(new GetObjectCommand({ Bucket: w.bucket, Key: w.key }))).Body!.transformToString(),
    ).toBe(w.content);
  } finally {
    s3.destroy();
  }
  expect(await withFtp(new URL(owner.ftpUrl), (c) => ftpRead(c, w.ftpFile))).toBe(w.content);
}

/** `intruder` can neither read nor write the bucket, nor reach the FTP files, that `w` holds. */
export async function expectIsolated(intruder: IssuedUser, w: Written): Promise<void> {
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
    for (const where of [
      w.ftpFile,
      `../${w.ftpHome}/${w.ftpFile}`,
      `/../${w.ftpHome}/${w.ftpFile}`,
      `/../../ftp/${w.ftpHome}/${w.ftpFile}`,
    ])
      expect(await refusal(() => ftpRead(ftp, where)), where).toBe(550);
  });
}
