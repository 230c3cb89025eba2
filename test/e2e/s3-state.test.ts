// State where teams keep it: the stack's state in an S3 bucket (Pulumi's DIY S3 backend) on the
// local API's own versitygw. up, a second up, destroy; then every object in the bucket, history
// and backups included, is searched for the token and every credential issued.
import { randomBytes } from "node:crypto";
import { CreateBucketCommand, GetObjectCommand, ListObjectsV2Command, S3Client } from "@aws-sdk/client-s3";
import { afterAll, beforeAll, expect, test } from "vitest";
import { startRealApiServer, RealApiServer } from "../../server/real-backends";
import { repoRoot, TestStack } from "../../scripts/stack";
import { hits, secretsOf, withEncodings } from "../support/secrets";

const token = `s3-state-${randomBytes(6).toString("hex")}`;
const bucket = "pulumi-state";
// The state bucket's own account, as a team's CI has one; not a StorageUser.
const stateKey = {
  accessKeyId: `STATE${randomBytes(6).toString("hex").toUpperCase()}`,
  secretAccessKey: randomBytes(24).toString("base64"),
};
let api: RealApiServer;
let s3: S3Client;
let stack: TestStack | undefined;

beforeAll(async () => {
  // The state bucket needs S3 alone: no Keystone and Swift, whose set-up is most of a real start.
  api = await startRealApiServer({ token }, { swift: false });
  await api.backends.createS3Account(stateKey.accessKeyId, stateKey.secretAccessKey);
  s3 = new S3Client({
    endpoint: api.backends.s3Endpoint,
    region: "us-east-1",
    forcePathStyle: true,
    credentials: stateKey,
  });
  await s3.send(new CreateBucketCommand({ Bucket: bucket }));
});
afterAll(async () => {
  await stack?.dispose();
  s3?.destroy();
  await api?.close();
});

async function objects(): Promise<Array<[string, string]>> {
  const out: Array<[string, string]> = [];
  let ContinuationToken: string | undefined;
  do {
    const page = await s3.send(new ListObjectsV2Command({ Bucket: bucket, ContinuationToken }));
    for (const o of page.Contents ?? []) {
      const body = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: o.Key! }));
      out.push([`s3://${bucket}/${o.Key}`, Buffer.from(await body.Body!.transformToByteArray()).toString("latin1")]);
    }
    ContinuationToken = page.NextContinuationToken;
  } while (ContinuationToken);
  return out;
}

test("up, a second up and destroy with the state in an S3 bucket; no token or credential in any object of it", async () => {
  const port = new URL(api.backends.s3Endpoint).port;
  // The same as `pulumi login 's3://…'`, per command: the URL goes in PULUMI_BACKEND_URL.
  const backend = `s3://${bucket}?endpoint=127.0.0.1:${port}&s3ForcePathStyle=true&disableSSL=true`;
  stack = await TestStack.create({
    programDir: repoRoot,
    config: {
      "storage:baseUrl": api.url,
      "users[0].name": "app",
      "users[0].userName": "app-s3state",
      "users[1].name": "backup",
      "users[1].userName": "backup-s3state",
    },
    secrets: { "storage:accessToken": token },
    env: {
      PULUMI_BACKEND_URL: backend,
      AWS_ACCESS_KEY_ID: stateKey.accessKeyId,
      AWS_SECRET_ACCESS_KEY: stateKey.secretAccessKey,
      AWS_REGION: "us-east-1",
    },
  });
  const outputs: string[] = [];
  const first = await stack.up();
  outputs.push(first.output);
  expect(first.code, first.output).toBe(0);
  expect(api.users.map((u) => u.Name).sort()).toEqual(["app-s3state", "backup-s3state"]);
  const second = await stack.up();
  outputs.push(second.output);
  expect(second.code, second.output).toBe(0);
  expect(api.createAttempts).toBe(2); // the second up read the state from the bucket: nothing to create
  const checkpoint = `.pulumi/stacks/storage-users/${stack.stackName}.json`;
  const afterUps = await objects();
  expect(afterUps.map(([k]) => k)).toContain(`s3://${bucket}/${checkpoint}`);
  const state = afterUps.find(([k]) => k.endsWith(checkpoint))![1];
  expect(state).toContain("pulumi-nodejs:dynamic/storage:StorageUser");
  const destroyed = await stack.destroy();
  outputs.push(destroyed.output);
  expect(destroyed.code, destroyed.output).toBe(0);
  expect(stack.stateFileText()).toBe(""); // nothing went to the file backend TestStack uses by default

  const all = await objects();
  const history = all.filter(([k]) => k.includes("/history/"));
  expect(history.length).toBeGreaterThanOrEqual(3 * 2); // a history entry and a checkpoint per update
  const needles: Array<[string, string]> = [...withEncodings(api.users.flatMap(secretsOf)), ["token", token]];
  expect(needles.length).toBe(2 * 2 * 10 + 1);
  expect(hits([...all, ...outputs.map((o, i): [string, string] => [`cli output ${i}`, o])], needles)).toEqual([]);
});
