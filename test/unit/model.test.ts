// The description (provider/model.ts) is the one place an input or output is described, its prose the doc comments
// TypeScript programs read: the plugin's schema holds it, and the class and the plugin derive the same values from
// the same state, secret alike.
import * as pulumi from "@pulumi/pulumi";
import { beforeAll, describe, expect, test } from "vitest";
import { isSecret, outputNames } from "../../provider/model";
import { schema, typeToken } from "../../provider/plugin/schema";
import { mockApiUser, storageUserMocks } from "../../provider/testing";

describe("the plugin's schema", () => {
  const resource = schema.resources[typeToken];
  // Written out, not read from model.ts: the schema is made from that table, and the Go and Python SDKs from the schema,
  // so a property added, dropped or made optional there is a change of three public surfaces that this list must name.
  test("has the four inputs and the sixteen outputs users rely on, nothing else; all but three are set after every create; secret exactly those made from the credentials", () => {
    const given = ["userName", "persistPassword", "connection", "rotateAfter"];
    const derived = [
      "userId",
      "state",
      "creationTaskId",
      "tasks",
      "swiftEndpoint",
      "s3Endpoint",
      "ftpHostName",
      "baseUrl",
    ];
    const secret = ["credentials", "name", "password", "swift", "s3", "ftp", "env", "ftpUrl"];
    expect(Object.keys(resource.inputProperties)).toStrictEqual(given);
    expect(Object.keys(resource.properties)).toStrictEqual([...given, ...derived, ...secret]);
    expect(resource.required).toStrictEqual(
      [...given, ...derived, ...secret].filter((k) => !["connection", "rotateAfter", "creationTaskId"].includes(k)),
    );
    expect([resource.isComponent, schema.name, typeToken]).toStrictEqual([
      true,
      "storage-user",
      "storage-user:index:StorageUser",
    ]);
    const props = resource.properties as Record<string, { secret?: boolean }>;
    expect([Object.keys(props).filter((k) => props[k].secret), outputNames.filter(isSecret)]).toStrictEqual([
      secret,
      secret,
    ]);
  });
  test("describes each property with its doc comment in TypeScript, the only copy of the prose", () => {
    const described = (props: object) => Object.values(props).filter((p: { description?: string }) => p.description);
    expect([described(resource.inputProperties).length, described(resource.properties).length]).toStrictEqual([4, 20]);
    expect([resource.inputProperties.persistPassword, resource.properties.env]).toStrictEqual([
      {
        type: "boolean",
        default: false,
        description:
          "Request member `PersistPassword`, sent as 1 or 0. The spec gives it no meaning; changing it creates a new user.",
      },
      {
        type: "object",
        additionalProperties: { type: "string" },
        description: "Secret: AWS_*, OS_* and FTP_* variables for applications.",
        secret: true,
      },
    ]);
  });
});

// Both hosts derive the outputs with the same function (provider/program.ts derive): the class under mocks stands for both.
// The expected values are the API's answer (the mock's body) mapped by hand, field by field, as docs/outputs.md describes.
describe("the class derives every output from its state, secret exactly where the schema says", () => {
  const fromClass: Record<string, { value: unknown; secret: boolean }> = {};
  const api = mockApiUser("app", "app-prod") as Record<string, Record<string, string>> & { Id: number };
  const [swift, s3, ftp] = [api.SwiftApiConnection, api.S3Connection, api.FtpConnection];
  const task = (api.Tasks as unknown as Record<string, unknown>[])[0];
  const connections = {
    swift: { endpoint: swift.Endpoint, tenantId: swift.TenantId, accessKey: swift.AccessKey, password: swift.Password },
    s3: { endpoint: s3.Endpoint, accessKey: s3.AccessKey, secretKey: s3.SecretKey },
    ftp: { hostName: ftp.HostName, login: ftp.Login, password: ftp.Password },
  };
  const ftpUrl = `ftp://${ftp.Login}:${ftp.Password}@${ftp.HostName}/`;
  const expected: Record<string, unknown> = {
    userId: api.Id,
    state: "New",
    creationTaskId: task.Id,
    tasks: [{ id: task.Id, progressPercent: 0, type: "StorageUserCreate", state: "New", startDate: task.StartDate }],
    swiftEndpoint: swift.Endpoint,
    s3Endpoint: s3.Endpoint,
    ftpHostName: ftp.HostName,
    baseUrl: "https://api.storage.example.test",
    credentials: { name: "app-prod", password: api.Password, ...connections },
    name: "app-prod",
    password: api.Password,
    ...connections,
    env: {
      AWS_ACCESS_KEY_ID: s3.AccessKey,
      AWS_SECRET_ACCESS_KEY: s3.SecretKey,
      AWS_ENDPOINT_URL_S3: s3.Endpoint,
      OS_AUTH_URL: swift.Endpoint,
      OS_TENANT_ID: swift.TenantId,
      OS_PROJECT_ID: swift.TenantId,
      OS_USERNAME: swift.AccessKey,
      OS_PASSWORD: swift.Password,
      OS_IDENTITY_API_VERSION: "3",
      OS_USER_DOMAIN_NAME: "Default",
      FTP_HOST: ftp.HostName,
      FTP_USER: ftp.Login,
      FTP_PASSWORD: ftp.Password,
      FTP_URL: ftpUrl,
    },
    ftpUrl,
  };
  beforeAll(async () => {
    await pulumi.runtime.setMocks(storageUserMocks(), "project", "stack", false);
    // The built class: its plugin entry (./runtime) is resolved as the package ships it.
    const { StorageUser } = await import("../../dist/provider/storage-user");
    const user = new StorageUser("app", { userName: "app-prod" }) as unknown as Record<string, pulumi.Output<unknown>>;
    for (const name of outputNames) {
      const value = await new Promise((resolve) => user[name].apply(resolve));
      fromClass[name] = { value, secret: await pulumi.isSecret(user[name]) };
    }
  });
  test("the outputs are those the schema lists", () => {
    expect(Object.keys(fromClass)).toStrictEqual(Object.keys(expected));
  });
  test.each(outputNames)("%s", (name) => {
    const { secret } = schema.resources[typeToken].properties[name] as { secret: boolean };
    expect(fromClass[name]).toStrictEqual({ value: expected[name], secret });
  });
});
