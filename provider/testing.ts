// `pulumi-storage-user/testing`: mocks for unit tests of programs that use StorageUser (`pulumi.runtime.setMocks`,
// no engine, no API); docs/unit-testing.md shows a whole test.
import * as pulumi from "@pulumi/pulumi";
import { createHash } from "node:crypto";
import { PREVIEW_MARK, withDefaults } from "./arguments";
import { TYPES } from "./identity";
import { CreatedUser, fields, split } from "./model";
import { parseAnswer } from "./core/api";

/** The type token a StorageUser registers under (a dynamic resource of module `storage`). */
export const storageUserType = TYPES.user;

/** Options of {@link storageUserMocks}. */
export interface StorageUserMockOptions {
  /**
   * The base URL recorded as the users' service (the `baseUrl` output).
   * @default "https://api.storage.example.test"
   */
  baseUrl?: string;
}

const hash = (text: string, length: number) => createHash("sha256").update(text).digest("base64url").slice(0, length);
const plainValues: Record<string, string> = {
  State: "New",
  "SwiftApiConnection.Endpoint": "https://keystone.example.test/v3",
  "S3Connection.Endpoint": "https://s3.example.test",
  "FtpConnection.HostName": "ftp.example.test",
};

/** The body the API would answer a create of `userName` with, as the spec shapes it; made-up values, stable per resource name. */
export function mockApiUser(resourceName: string, userName: string): Record<string, unknown> {
  const id = 1000 + (parseInt(createHash("sha256").update(resourceName).digest("hex").slice(0, 6), 16) % 9000);
  const body: Record<string, unknown> = { Id: id };
  for (const { api } of fields) {
    const path = api.join(".");
    const value = path === "Name" ? userName : (plainValues[path] ?? hash(`${resourceName}\0${path}`, 24));
    const parent = api.length === 1 ? body : ((body[api[0]] ??= {}) as Record<string, unknown>);
    parent[api[api.length - 1]] = value;
  }
  const task = {
    Id: id * 10,
    ProgressPercent: 0,
    Type: "StorageUserCreate",
    State: "New",
    StartDate: "2026-01-01T00:00:00.000",
  };
  return { ...body, Tasks: [task] };
}

/**
 * Mocks for `pulumi.runtime.setMocks(storageUserMocks(), "project", "stack", false)`: a StorageUser gets a
 * realistic user, stored as the provider stores it (credential outputs secret); the rest goes to `userMocks`.
 */
export function storageUserMocks(
  userMocks?: pulumi.runtime.Mocks,
  options: StorageUserMockOptions = {},
): pulumi.runtime.Mocks {
  const baseUrl = options.baseUrl ?? "https://api.storage.example.test";
  return {
    newResource(args: pulumi.runtime.MockResourceArgs) {
      if (args.type !== storageUserType)
        return userMocks
          ? userMocks.newResource(args)
          : { id: `${args.name}-id`, state: args.inputs as Record<string, unknown> };
      const { [PREVIEW_MARK]: _mark, ...given } = args.inputs as Record<string, unknown>;
      const userName =
        typeof given.userName === "string"
          ? given.userName
          : `${args.name}-${createHash("sha256").update(args.name).digest("hex").slice(0, 7)}`;
      // The provider's own parsing of the answer: a mock that drifted from the table would fail here.
      const { user } = parseAnswer({ text: JSON.stringify(mockApiUser(args.name, userName)), truncated: false }) as {
        user: CreatedUser;
      };
      return { id: String(user.userId), state: { ...withDefaults(given), userName, ...split(user, baseUrl) } };
    },
    call: (args: pulumi.runtime.MockCallArgs) =>
      userMocks ? userMocks.call(args) : (args.inputs as Record<string, unknown>),
  };
}
