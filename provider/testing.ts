/**
 * `pulumi-storage-user/testing`: mocks for unit tests of a program that uses StorageUser, the way
 * Pulumi documents it (`pulumi.runtime.setMocks`, no engine, no API). A StorageUser is answered with
 * a realistic user, parsed and stored as the provider does; everything else goes to your own mocks.
 */
import * as pulumi from "@pulumi/pulumi";
import { createHash } from "node:crypto";
import { defaults } from "./defaults";
import { PREVIEW_MARK } from "./inputs";
import { parseAnswer } from "./plugin/api";
import { split } from "./model";

/** The type token a StorageUser registers under (a dynamic resource of module `storage`). */
export const storageUserType = "pulumi-nodejs:dynamic/storage:StorageUser";

/** Options of {@link storageUserMocks}. */
export interface StorageUserMockOptions {
  /**
   * The base URL recorded as the users' service (the `baseUrl` output).
   * @default "https://api.storage.example.test"
   */
  baseUrl?: string;
}

/** Deterministic text per resource name and purpose: the same test always sees the same user. */
const derive = (name: string, what: string, length = 24) =>
  createHash("sha256").update(`${name}\0${what}`).digest("base64url").slice(0, length);

/**
 * The body the storage API would answer a create of `userName` with, as the spec shapes it
 * (`Id`, `Name`, `Password`, the three connections, `State` New, one `StorageUserCreate` task).
 * Values are made up but stable per resource name; endpoints are under `example.test`.
 */
export function mockApiUser(resourceName: string, userName: string): Record<string, unknown> {
  const id = 1000 + (parseInt(createHash("sha256").update(resourceName).digest("hex").slice(0, 6), 16) % 9000);
  return {
    Id: id,
    Name: userName,
    Password: derive(resourceName, "password"),
    SwiftApiConnection: {
      Endpoint: "https://keystone.example.test/v3",
      TenantId: derive(resourceName, "tenant", 32),
      AccessKey: `swift_${derive(resourceName, "swift", 12)}`,
      Password: derive(resourceName, "swift-password"),
    },
    S3Connection: {
      Endpoint: "https://s3.example.test",
      AccessKey: derive(resourceName, "s3", 20).toUpperCase(),
      SecretKey: derive(resourceName, "s3-secret", 40),
    },
    FtpConnection: {
      HostName: "ftp.example.test",
      Login: `ftp_${derive(resourceName, "ftp", 12)}`,
      Password: derive(resourceName, "ftp-password"),
    },
    State: "New",
    Tasks: [
      {
        Id: id * 10,
        ProgressPercent: 0,
        Type: "StorageUserCreate",
        State: "New",
        StartDate: "2026-01-01T00:00:00.000",
      },
    ],
  };
}

/**
 * Mocks for `pulumi.runtime.setMocks` that answer every StorageUser with a realistic created
 * user (its `userName` when given, else `<name>-<7 hex digits>` as the provider auto-names,
 * here stable per name) and pass everything else to `userMocks`, or, without them, answer a
 * resource with its inputs and a call with its arguments.
 *
 * Credential outputs (`credentials`, `env`, `ftpUrl`, `s3`, …) are secret, as under the engine.
 *
 * @example
 * pulumi.runtime.setMocks(storageUserMocks(), "project", "stack", false);
 * const app = new StorageUser("app");
 * // app.env resolves to AWS_*, OS_*, FTP_* values; pulumi.isSecret(app.env) is true
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
      const parsed = parseAnswer({ text: JSON.stringify(mockApiUser(args.name, userName)), truncated: false });
      if (parsed.kind !== "created")
        throw new Error(`mockApiUser does not match the wire mapping: ${JSON.stringify(parsed)}`);
      const { account, secrets } = split(parsed.user, baseUrl);
      const state = {
        ...given,
        userName,
        persistPassword: given.persistPassword ?? defaults.persistPassword,
        account: JSON.stringify(account),
        secrets: JSON.stringify(secrets),
      };
      return { id: String(parsed.user.userId), state };
    },
    call(args: pulumi.runtime.MockCallArgs) {
      return userMocks ? userMocks.call(args) : (args.inputs as Record<string, unknown>);
    },
  };
}
