// The description (provider/model.ts) is the one place an input or output is described, its prose the doc comments
// TypeScript programs read: the plugin's schema holds it, and the class and the plugin derive the same values from
// the same state, secret alike.
import * as pulumi from "@pulumi/pulumi";
import { beforeAll, describe, expect, test } from "vitest";
import { inputs, isSecret, outputNames } from "../../provider/model";
import { schema, typeToken } from "../../provider/plugin/schema";
import { storageUserMocks } from "../../provider/testing";
import { packageVersion } from "../../scripts/toolchain";

describe("the plugin's schema", () => {
  const resource = schema.resources[typeToken];
  test("has the description's inputs and outputs, nothing else; all but three are set after every create", () => {
    expect(Object.keys(resource.inputProperties).sort()).toEqual(Object.keys(inputs).sort());
    expect(Object.keys(resource.properties).sort()).toEqual([...Object.keys(inputs), ...outputNames].sort());
    expect(Object.keys(resource.properties).filter((k) => !resource.required.includes(k))).toEqual([
      "connection",
      "rotateAfter",
      "creationTaskId",
    ]);
    expect(schema.version).toBe(packageVersion);
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
  test("marks secret exactly the outputs made from the credentials", () => {
    const props = resource.properties as Record<string, { secret?: boolean }>;
    const made = ["credentials", "name", "password", "swift", "s3", "ftp", "env", "ftpUrl"];
    expect(Object.keys(props).filter((k) => props[k].secret)).toEqual(made);
    expect(outputNames.filter(isSecret)).toEqual(made);
  });
});

// Both hosts derive the outputs with the same function (provider/program.ts derive): the class under mocks stands for both.
describe("the class derives every output from its state, secret exactly where the schema says", () => {
  const fromClass: Record<string, { value: unknown; secret: boolean }> = {};
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
  test.each(outputNames)("%s", (name) => {
    const { secret } = schema.resources[typeToken].properties[name] as { secret: boolean };
    expect([fromClass[name].value !== undefined, fromClass[name].secret]).toStrictEqual([true, secret]);
  });
});
