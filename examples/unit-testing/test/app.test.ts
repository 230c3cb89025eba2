// The same checks with vitest.
import * as pulumi from "@pulumi/pulumi";
import { storageUserMocks } from "pulumi-storage-user/testing";
import { beforeAll, describe, expect, test } from "vitest";

pulumi.runtime.setMocks(storageUserMocks(), "project", "stack", false);
const valueOf = <T>(o: pulumi.Output<T>) => new Promise<T>((resolve) => o.apply(resolve));

describe("storage users", () => {
  let program: typeof import("../app");
  beforeAll(async () => void (program = await import("../app")));

  test("env and ftpUrl reach the app config", async () => {
    const [env, config] = await Promise.all([valueOf(program.app.env), valueOf(program.appConfig)]);
    expect(config).toEqual({ S3_ENDPOINT: env.AWS_ENDPOINT_URL_S3, S3_KEY: env.AWS_ACCESS_KEY_ID, FTP: env.FTP_URL });
    expect(env.OS_IDENTITY_API_VERSION).toBe("3");
  });

  test("every credential output is secret; the id is not", async () => {
    const outputs: pulumi.Output<unknown>[] = [
      program.app.credentials,
      program.app.env,
      program.app.ftpUrl,
      program.app.swift,
      program.appConfig,
    ];
    for (const output of outputs) {
      expect(await pulumi.isSecret(output)).toBe(true);
    }
    expect(await pulumi.isSecret(program.app.userId)).toBe(false);
    expect(await valueOf(program.app.state)).toBe("New");
  });
});
