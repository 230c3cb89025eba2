// Every input and configuration rule of the provider's check, in-process: each value refused with
// its property and reason, each accepted one passed. test/e2e/engine/lifecycle.test.ts shows through the
// real CLI how a failure of each kind reaches the user (one case per kind); docs/input-rules.md
// lists the rules.
import { afterEach, describe, expect, test } from "vitest";
import { Settings } from "../../provider/config";
import { userNameOf } from "../../provider/arguments";
import { lifecycle } from "../../provider/core/lifecycle";
import * as runtime from "../../provider/runtime";
import { errorSaid, reasons } from "../support/said";

const PROVIDER = "exports.handler = () => ({});";
const useConfig = (values: Record<string, string | undefined>) =>
  runtime.configure({ config: { get: (k: string) => values[k] } } as Parameters<typeof runtime.configure>[0]);

afterEach(() => useConfig({}));

const long257 = "a".repeat(257);

describe("inputs: check refuses each value, naming the property", () => {
  test.each<[string, Record<string, unknown>, string, string]>([
    ["empty userName", { userName: "" }, "userName", reasons.userNameEmpty()],
    ["whitespace-only userName", { userName: " \t " }, "userName", reasons.userNameBlank()],
    ["trailing space", { userName: "app " }, "userName", reasons.userNameSpaces("app")],
    ["userName a number", { userName: 42 }, "userName", reasons.userNameNotString(42)],
    ["userName null", { userName: null }, "userName", reasons.userNameNotString(null)],
    ["userName of 257 characters", { userName: long257 }, "userName", reasons.userNameLong(257, 256)],
    ["control character", { userName: "app\u0007" }, "userName", reasons.userNameControl()],
    ["newline", { userName: "app\nprod" }, "userName", reasons.userNameControl()],
    ["line separator U+2028", { userName: "app\u2028prod" }, "userName", reasons.userNameControl()],
    ['persistPassword "true"', { persistPassword: "true" }, "persistPassword", reasons.notABoolean("true")],
    ["persistPassword 1", { userName: "ok-g", persistPassword: 1 }, "persistPassword", reasons.notABoolean(1)],
    [
      "an unknown argument, its value not echoed",
      { pasword: "hunter2" },
      "pasword",
      reasons.notAnArgument(["userName", "persistPassword", "connection", "rotateAfter"]),
    ],
  ])("%s", async (_label, args, property, reason) => {
    useConfig({ "storage:baseUrl": "https://storage.example.com" });
    const { failures } = await runtime.check({}, { ...args, __provider: PROVIDER });
    expect(failures).toStrictEqual([{ property, reason }]);
    expect(JSON.stringify(failures)).not.toContain("hunter2");
  });

  test.each<[string, Record<string, unknown>]>([
    ["userName of 256 characters", { userName: "b".repeat(256) }],
    ["non-ASCII userName", { userName: "app-prød-ü" }],
    ["persistPassword false", { userName: "ok-e", persistPassword: false }],
    ["userName unknown during preview", { userName: "04da6b54-80e4-46f7-96ec-b56ff0331ba9" }],
  ])("accepted with no token configured, persistPassword's default filled in: %s", async (_label, args) => {
    useConfig({ "storage:baseUrl": "https://storage.example.com" });
    const checked = await runtime.check({}, { ...args, __provider: PROVIDER });
    expect(checked).toEqual({ inputs: { persistPassword: false, ...args, __provider: PROVIDER }, failures: [] });
  });
});

describe("configuration: check refuses each base URL, against no input property", () => {
  const source = "storage:baseUrl";
  test.each<[string, string | undefined, string]>([
    [
      "missing",
      undefined,
      errorSaid("CONFIG_MISSING", { setting: "address", key: source, env: "STORAGE_API_URL", path: false }),
    ],
    [
      "not a URL",
      "storage.example.com/api",
      errorSaid("CONFIG_INVALID", { problem: "notAbsoluteUrl", source, raw: "storage.example.com/api" }),
    ],
    [
      "ftp:// scheme",
      "ftp://127.0.0.1/",
      errorSaid("CONFIG_INVALID", { problem: "notHttp", source, protocol: "ftp:" }),
    ],
    [
      "plain http:// to a remote host",
      "http://storage.example.com",
      errorSaid("CONFIG_INVALID", { problem: "plainHttp", source, host: "storage.example.com" }),
    ],
    [
      "credentials in the URL",
      "https://admin:s3cr3t-pw@storage.example.com",
      errorSaid("CONFIG_INVALID", { problem: "userInfo", source }),
    ],
    [
      "a query",
      "https://storage.example.com/?tenant=1",
      errorSaid("CONFIG_INVALID", { problem: "queryOrFragment", source }),
    ],
    [
      "a fragment",
      "https://storage.example.com/#api",
      errorSaid("CONFIG_INVALID", { problem: "queryOrFragment", source }),
    ],
  ])("%s", async (_label, url, said) => {
    useConfig({ "storage:baseUrl": url });
    const { failures } = await runtime.check({}, { userName: "cfg-user", __provider: PROVIDER });
    expect(failures).toStrictEqual([{ property: "", reason: said }]);
    expect(failures![0].reason, "the URL's password is not echoed").not.toContain("s3cr3t-pw");
  });

  test.each(["https://storage.example.com/api/", "http://localhost:1", "http://127.0.0.1:1", "http://[::1]:1"])(
    "accepted: %s",
    async (url) => {
      useConfig({ "storage:baseUrl": url });
      const { failures } = await runtime.check({}, { userName: "cfg-user", __provider: PROVIDER });
      expect(failures).toEqual([]);
    },
  );
});

describe("a generated name: the plugin (YAML, Go) keeps a suffix; a name recorded by 0.4.0 stays", () => {
  const plugin = lifecycle(new Settings("storage-user"));
  plugin.configure({
    config: { get: (k: string) => ({ "storage-user:baseUrl": "https://s.example.com" })[k] },
  } as never);
  const urn = "urn:pulumi:dev::p::storage-user:index:StorageUser::app";

  test("a create draws a suffix, no name; an update keeps the suffix; a recorded name stays", async () => {
    const created = (await plugin.check({}, { __urn: urn })).inputs!;
    expect(created).not.toHaveProperty("userName");
    expect(created.__nameSuffix).toMatch(/^[0-9a-f]{7}$/);
    expect(userNameOf(created, urn)).toBe(`app-${created.__nameSuffix}`);
    expect((await plugin.check(created, { __urn: urn })).inputs!.__nameSuffix).toBe(created.__nameSuffix);
    // Inputs as 0.4.0 recorded them: the name generated at check.
    const recorded = (await plugin.check({ userName: "app-1a2b3c4" }, { __urn: urn })).inputs!;
    expect([recorded.userName, recorded.__nameSuffix]).toEqual(["app-1a2b3c4", undefined]);
    expect((await plugin.diff("1", { userName: "app-1a2b3c4", persistPassword: false }, recorded)).changes).toBe(false);
  });
});
