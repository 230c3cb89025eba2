// Every key under `storage:` that is not a setting is refused, naming the key and never the value,
// whichever way the config arrives: as the program sees it (assertStorageConfig, run before the
// first resource registers) and as a service is about to write it (checkStorageConfig, before
// `stack.setAllConfig`). test/e2e/engine/token-safety.test.ts runs the program's side through the real CLI.
import { describe, expect, test } from "vitest";
import { assertStorageConfig } from "../../provider/connections";
import { checkStorageConfig, ConfigMapLike } from "../../provider/automation";

const secret = "plain-secret-value-6b1f0d";

function codeAndMessage(f: () => void): { code?: string; message: string } {
  try {
    f();
  } catch (err) {
    return { code: (err as { code?: string }).code, message: (err as Error).message };
  }
  return { message: "(nothing thrown)" };
}

/** Each shape as the program receives it (objects as JSON text), the message it must name, and the same config as path keys. */
const shapes: Array<[string, Record<string, string>, string, ConfigMapLike]> = [
  [
    "a misspelt top-level key",
    { "storage:accessTokn": secret },
    '"storage:accessTokn" is not a setting of pulumi-storage-user',
    { "storage:accessTokn": { value: secret } },
  ],
  [
    "a misspelt key in an unused connection",
    { "storage:connections": JSON.stringify({ eu: { baseUrl: "https://eu.example", accesToken: secret } }) },
    'storage:connections.eu has "accesToken", which is not a connection setting',
    {
      "storage:connections.eu.baseUrl": { value: "https://eu.example" },
      "storage:connections.eu.accesToken": { value: secret },
    },
  ],
  [
    "a connection that is a value, not an entry",
    { "storage:connections": JSON.stringify({ eu: secret }) },
    "storage:connections.eu is not an object with baseUrl and accessToken",
    { "storage:connections.eu": { value: secret } },
  ],
  [
    "a connection name that maps to no environment variable",
    { "storage:connections": JSON.stringify({ "EU-1": { accessToken: secret } }) },
    'storage:connections has an entry named "EU-1"',
    { "storage:connections.EU-1.accessToken": { value: secret, secret: true } },
  ],
  [
    "a setting of a connection given as an object",
    { "storage:connections": JSON.stringify({ eu: { baseUrl: { x: secret } } }) },
    "storage:connections.eu.baseUrl is not a string",
    { "storage:connections.eu.baseUrl.x": { value: secret } },
  ],
  [
    "a top-level setting given as an object",
    { "storage:baseUrl": JSON.stringify({ x: secret }) },
    "storage:baseUrl is an object, not a string",
    { "storage:baseUrl.x": { value: secret } },
  ],
  [
    "storage:connections as a plain value",
    { "storage:connections": secret },
    "storage:connections is not an object of named connections",
    { "storage:connections": { value: secret } },
  ],
];

describe("assertStorageConfig (the program's check)", () => {
  test.each(shapes)("%s: [CONFIG_INVALID] naming the key, never the value", (_what, values, named) => {
    const r = codeAndMessage(() => assertStorageConfig({ "storage:baseUrl": "https://api.example", ...values }, "app"));
    expect(r.code).toBe("CONFIG_INVALID");
    expect(r.message).toContain(named);
    expect(r.message).not.toContain(secret);
  });

  test("the settings, and other namespaces, pass", () => {
    const values = {
      "storage:baseUrl": "https://api.example",
      "storage:accessToken": secret,
      "storage:connections": JSON.stringify({ eu: { baseUrl: "https://eu.example", accessToken: secret }, us: {} }),
      "aws:region": "eu-west-1",
      "app:storage:x": "y",
    };
    expect(codeAndMessage(() => assertStorageConfig(values, "app")).message).toBe("(nothing thrown)");
  });

  test("a project named storage owns other keys of that namespace, but its settings are still checked", () => {
    expect(codeAndMessage(() => assertStorageConfig({ "storage:replicas": "3" }, "storage")).message).toBe(
      "(nothing thrown)",
    );
    expect(
      codeAndMessage(() =>
        assertStorageConfig({ "storage:connections": JSON.stringify({ eu: { accesToken: secret } }) }, "storage"),
      ).code,
    ).toBe("CONFIG_INVALID");
  });
});

describe("checkStorageConfig (a service's config, before it is written)", () => {
  test.each(shapes)("%s: [CONFIG_INVALID], as path keys and as whole values", (_what, values, named, pathKeys) => {
    const whole = Object.fromEntries(Object.entries(values).map(([k, value]) => [k, { value }]));
    for (const r of [
      codeAndMessage(() => checkStorageConfig(whole)),
      codeAndMessage(() => checkStorageConfig(pathKeys, { path: true })),
    ]) {
      expect(r.code).toBe("CONFIG_INVALID");
      expect(r.message).toContain(named);
      expect(r.message).not.toContain(secret);
    }
  });

  test.each([
    ["the token", { "storage:accessToken": { value: secret } }, {}, "storage:accessToken"],
    [
      "a connection's token, path key",
      { "storage:connections.eu.accessToken": { value: secret } },
      { path: true },
      "storage:connections.eu.accessToken",
    ],
    [
      "a connection's token, path key, secret: false",
      { "storage:connections.eu.accessToken": { value: secret, secret: false } },
      { path: true },
      "storage:connections.eu.accessToken",
    ],
    [
      "a connection's token, whole object not secret",
      { "storage:connections": { value: JSON.stringify({ eu: { accessToken: secret } }) } },
      {},
      "storage:connections.eu.accessToken",
    ],
  ])("%s without secret: [CONFIG_NOT_SECRET] with the setAllConfig fix", (_what, config, options, key) => {
    const r = codeAndMessage(() => checkStorageConfig(config, options));
    expect(r.code).toBe("CONFIG_NOT_SECRET");
    expect(r.message).toContain(`${key} is set in plain text`);
    expect(r.message).toContain("secret: true");
    expect(r.message).not.toContain(secret);
  });

  test("secret tokens and a base URL pass, as whole values and path keys", () => {
    const whole: ConfigMapLike = {
      "storage:baseUrl": { value: "https://api.example" },
      "storage:accessToken": { value: secret, secret: true },
      "storage:connections": {
        value: JSON.stringify({ eu: { baseUrl: "https://eu.example", accessToken: secret } }),
        secret: true,
      },
    };
    const paths: ConfigMapLike = {
      "storage:baseUrl": { value: "https://api.example" },
      "storage:connections.eu.baseUrl": { value: "https://eu.example" },
      "storage:connections.eu.accessToken": { value: secret, secret: true },
      "aws:region": { value: "eu-west-1" },
    };
    expect(codeAndMessage(() => checkStorageConfig(whole)).message).toBe("(nothing thrown)");
    expect(codeAndMessage(() => checkStorageConfig(paths, { path: true })).message).toBe("(nothing thrown)");
  });
});
