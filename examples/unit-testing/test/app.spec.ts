// mocha, as Pulumi's unit-testing guide uses it: mocks first, then the program.
import * as assert from "node:assert";
import * as pulumi from "@pulumi/pulumi";
import { storageUserMocks } from "pulumi-storage-user/testing";

pulumi.runtime.setMocks(storageUserMocks(), "project", "stack", false);

/** An Output's value, in a test (Pulumi's guide does the same with apply). */
const valueOf = <T>(o: pulumi.Output<T>) => new Promise<T>((resolve) => o.apply(resolve));

describe("storage users", function () {
  let program: typeof import("../app");
  before(async function () {
    program = await import("../app");
  });

  it("auto-names a user and keeps a given name", async function () {
    assert.match(await valueOf(program.app.userName), /^app-[0-9a-f]{7}$/);
    assert.strictEqual(await valueOf(program.backup.userName), "backup-prod");
  });

  it("wires env and ftpUrl into the app config", async function () {
    const [env, ftpUrl, config] = await Promise.all([
      valueOf(program.app.env),
      valueOf(program.app.ftpUrl),
      valueOf(program.appConfig),
    ]);
    assert.strictEqual(config.S3_ENDPOINT, env.AWS_ENDPOINT_URL_S3);
    assert.strictEqual(config.S3_KEY, env.AWS_ACCESS_KEY_ID);
    assert.strictEqual(config.FTP, ftpUrl);
    assert.strictEqual(ftpUrl, env.FTP_URL);
  });

  it("hands the application secrets only", async function () {
    const outputs: pulumi.Output<unknown>[] = [
      program.app.env,
      program.app.ftpUrl,
      program.app.password,
      program.app.s3,
      program.appConfig,
    ];
    for (const output of outputs) {
      assert.strictEqual(await pulumi.isSecret(output), true);
    }
    assert.strictEqual(await pulumi.isSecret(program.app.userId), false);
  });
});
