// The one configuration check and the settings' resolution, called directly: every key under the
// namespace that is no setting refused naming the key (with the closest setting) and never the
// value, whichever way the config arrives (the program's values, a service's ConfigMap as whole
// values or path keys); plain tokens refused; each connection's keys and environment fallbacks.
import { describe, expect, test } from "vitest";
import { checkConfig, PlainAt, Settings, settingKeys } from "../../provider/config";
import { checkStorageConfig, ConfigMapLike } from "../../provider/automation";

const secret = "plain-secret-value-6b1f0d";
const never = (): PlainAt => undefined;
function outcome(f: () => void): { code?: string; message: string; details?: Readonly<Record<string, unknown>> } {
  try {
    f();
    return { message: "(nothing thrown)" };
  } catch (err) {
    const { code, details } = err as { code?: string; details?: Readonly<Record<string, unknown>> };
    return { code, message: (err as Error).message, details };
  }
}
/** What a call threw, as code and details: the text is made from them by the catalogue (test/unit/messages.test.ts). */
const thrown = (f: () => void) => {
  const { code, details } = outcome(f);
  return { code, details };
};

/** Each shape as the program receives it (objects as JSON text), the details of the refusal, and the same config as path keys. */
const shapes: Array<[string, Record<string, string>, Record<string, unknown>, ConfigMapLike]> = [
  [
    "a misspelt top-level key",
    { "storage:accessTokn": secret },
    {
      problem: "unknownKeys",
      keys: ["storage:accessTokn"],
      known: ["storage:baseUrl", "storage:accessToken", "storage:connections"],
      path: false,
      suggest: "storage:accessToken",
    },
    { "storage:accessTokn": { value: secret } },
  ],
  [
    "a misspelt key in an unused connection",
    { "storage:connections": JSON.stringify({ eu: { baseUrl: "https://eu.example", accesToken: secret } }) },
    {
      problem: "unknownKeys",
      keys: ["storage:connections.eu.accesToken"],
      known: ["storage:connections.eu.baseUrl", "storage:connections.eu.accessToken"],
      path: true,
      suggest: "storage:connections.eu.accessToken",
    },
    {
      "storage:connections.eu.baseUrl": { value: "https://eu.example" },
      "storage:connections.eu.accesToken": { value: secret },
    },
  ],
  [
    "a connection that is a value, not an entry",
    { "storage:connections": JSON.stringify({ eu: secret }) },
    { problem: "notAnObject", key: "storage:connections.eu", expected: "an object with baseUrl and accessToken" },
    { "storage:connections.eu": { value: secret } },
  ],
  [
    "a connection name that maps to no environment variable",
    { "storage:connections": JSON.stringify({ "EU-1": { accessToken: secret } }) },
    { problem: "badConnectionName", key: "storage:connections", name: "EU-1" },
    { "storage:connections.EU-1.accessToken": { value: secret, secret: true } },
  ],
  [
    "a setting of a connection given as an object",
    { "storage:connections": JSON.stringify({ eu: { baseUrl: { x: secret } } }) },
    { problem: "notAString", key: "storage:connections.eu.baseUrl", secret: false, path: true },
    { "storage:connections.eu.baseUrl.x": { value: secret } },
  ],
  [
    "a top-level setting given as an object",
    { "storage:baseUrl": JSON.stringify({ x: secret }) },
    { problem: "notAString", key: "storage:baseUrl", secret: false, path: false },
    { "storage:baseUrl.x": { value: secret } },
  ],
  [
    "storage:connections as a plain value",
    { "storage:connections": secret },
    { problem: "notAnObject", key: "storage:connections", expected: "an object of named connections" },
    { "storage:connections": { value: secret } },
  ],
];

describe("checkConfig, the one check", () => {
  test.each(shapes)(
    "%s: [CONFIG_INVALID] naming the key, never the value, as the program and a service give it",
    (_what, values, details, pathKeys) => {
      const whole = Object.fromEntries(Object.entries(values).map(([k, value]) => [k, { value }]));
      for (const r of [
        outcome(() => checkConfig({ "storage:baseUrl": "https://api.example", ...values }, never, { project: "app" })),
        outcome(() => checkStorageConfig(whole)),
        outcome(() => checkStorageConfig(pathKeys, { path: true })),
      ]) {
        expect({ code: r.code, details: r.details }).toStrictEqual({ code: "CONFIG_INVALID", details });
        expect(r.message).not.toContain(secret);
      }
    },
  );

  test("the settings and other namespaces pass; a project named storage owns other keys there, its settings still checked", () => {
    const values = {
      "storage:baseUrl": "https://api.example",
      "storage:accessToken": secret,
      "storage:connections": JSON.stringify({ eu: { baseUrl: "https://eu.example", accessToken: secret }, us: {} }),
      "aws:region": "eu-west-1",
      "app:storage:x": "y",
    };
    expect(outcome(() => checkConfig(values, never, { project: "app" })).message).toBe("(nothing thrown)");
    expect(outcome(() => checkConfig({ "storage:replicas": "3" }, never, { project: "storage" })).message).toBe(
      "(nothing thrown)",
    );
    const misspelt = { "storage:connections": JSON.stringify({ eu: { accesToken: secret } }) };
    expect(outcome(() => checkConfig(misspelt, never, { project: "storage" })).code).toBe("CONFIG_INVALID");
  });

  test("the plugin's namespace has no connections: any other key is refused, with the closest setting", () => {
    const r = outcome(() => checkConfig({ "storage-user:accesToken": secret }, never, { ns: "storage-user" }));
    expect({ code: r.code, details: r.details }).toStrictEqual({
      code: "CONFIG_INVALID",
      details: {
        problem: "unknownKeys",
        keys: ["storage-user:accesToken"],
        known: ["storage-user:baseUrl", "storage-user:accessToken"],
        path: false,
        suggest: "storage-user:accessToken",
      },
    });
    expect(r.message).not.toContain(secret);
  });

  const euToken = "storage:connections.eu.accessToken";
  /** storage:connections as one whole value, `connections` as JSON text. */
  const connectionsValue = (connections: object, secret?: boolean) => ({
    "storage:connections": { value: JSON.stringify(connections), secret },
  });
  const top = { key: "storage:accessToken", env: "STORAGE_ACCESS_TOKEN", path: false };
  const eu = { key: euToken, env: "STORAGE_ACCESS_TOKEN_EU", path: true };
  test.each<[string, ConfigMapLike, { path?: boolean }, typeof top]>([
    ["the token", { "storage:accessToken": { value: secret } }, {}, top],
    ["a connection's token, path key", { [euToken]: { value: secret } }, { path: true }, eu],
    ["a connection's token, whole object not secret", connectionsValue({ eu: { accessToken: secret } }), {}, eu],
  ])("%s without secret: [CONFIG_NOT_SECRET] with the setAllConfig fix", (_what, config, options, keys) => {
    const r = outcome(() => checkStorageConfig(config, options));
    const details = { ...keys, where: "the config about to be set", inline: true }; // inline: the setAllConfig fix
    expect({ code: r.code, details: r.details }).toStrictEqual({ code: "CONFIG_NOT_SECRET", details });
    expect(r.message).not.toContain(secret);
  });

  test("secret tokens and a base URL pass, as whole values and path keys", () => {
    const values: ConfigMapLike = {
      "storage:baseUrl": { value: "https://api.example" },
      "storage:accessToken": { value: secret, secret: true },
      ...connectionsValue({ eu: { baseUrl: "https://eu.example", accessToken: secret } }, true),
    };
    const paths: ConfigMapLike = {
      "storage:connections.eu.baseUrl": { value: "https://eu.example" },
      [euToken]: { value: secret, secret: true },
      "aws:region": { value: "eu-west-1" },
    };
    expect(outcome(() => checkStorageConfig(values)).message).toBe("(nothing thrown)");
    expect(outcome(() => checkStorageConfig(paths, { path: true })).message).toBe("(nothing thrown)");
  });
});

describe("Settings, as the plugin resolves them", () => {
  test("each connection has its own keys and environment fallbacks; stack config wins", () => {
    expect(settingKeys("baseUrl", "eu_west")).toEqual({
      key: "storage:connections.eu_west.baseUrl",
      env: "STORAGE_API_URL_EU_WEST",
      path: true,
    });
    const env = { STORAGE_API_URL_EU: "https://env.example.com", STORAGE_ACCESS_TOKEN_EU: "env-token" };
    Object.assign(process.env, env);
    try {
      const settings = new Settings();
      expect(settings.resolve("eu")).toMatchObject({
        baseUrl: new URL("https://env.example.com"),
        accessToken: "env-token",
        accessTokenSource: "STORAGE_ACCESS_TOKEN_EU",
      });
      const address = {
        setting: "address",
        connection: undefined,
        key: "storage:baseUrl",
        env: "STORAGE_API_URL",
        path: false,
        setElsewhere: undefined,
      };
      expect(thrown(() => settings.baseUrl())).toStrictEqual({ code: "CONFIG_MISSING", details: address });
      const config: Record<string, string> = {
        "storage:connections": JSON.stringify({ eu: { baseUrl: "https://cfg.example.com/api" } }),
      };
      settings.configure({ get: (k) => config[k] });
      expect(settings.resolve("eu")).toMatchObject({
        baseUrl: new URL("https://cfg.example.com/api"),
        baseUrlSource: "storage:connections.eu.baseUrl",
        accessToken: "env-token",
      });
      const us = {
        ...address,
        connection: "us",
        key: "storage:connections.us.baseUrl",
        env: "STORAGE_API_URL_US",
        path: true,
      };
      expect(thrown(() => settings.baseUrl("us"))).toStrictEqual({ code: "CONFIG_MISSING", details: us });
      config["storage:connections"] = JSON.stringify({ eu: { accessToken: 7 } });
      settings.configure({ get: (k) => config[k] });
      const notAString = { problem: "notAString", key: "storage:connections.eu.accessToken", secret: true, path: true };
      expect(thrown(() => settings.baseUrl("eu"))).toStrictEqual({ code: "CONFIG_INVALID", details: notAString });
    } finally {
      for (const k of Object.keys(env)) delete process.env[k];
    }
  });

  test("a missing setting names its own key, and the other language's only when the stack sets it", () => {
    const [own, other] = [new Settings(), new Settings("storage-user")];
    const missing = (ns: string, setElsewhere?: string) => ({
      code: "CONFIG_MISSING",
      details: {
        setting: "address",
        connection: undefined,
        key: `${ns}:baseUrl`,
        env: "STORAGE_API_URL",
        path: false,
        setElsewhere,
      },
    });
    expect([thrown(() => own.baseUrl()), thrown(() => other.baseUrl())]).toStrictEqual([
      missing("storage"),
      missing("storage-user"),
    ]);
    own.configure({ get: (k) => (k === "storage-user:baseUrl" ? "https://a.example" : undefined) });
    other.configure({ get: (k) => (k === "storage:baseUrl" ? "https://a.example" : undefined) });
    expect([thrown(() => own.baseUrl()), thrown(() => other.baseUrl())]).toStrictEqual([
      missing("storage", "storage-user:baseUrl"),
      missing("storage-user", "storage:baseUrl"),
    ]);
    // The plugin's connection has no key of its own: the environment only.
    expect(thrown(() => new Settings("storage-user").baseUrl("eu"))).toStrictEqual({
      code: "CONFIG_MISSING",
      details: {
        setting: "address",
        connection: "eu",
        key: "",
        env: "STORAGE_API_URL_EU",
        path: false,
        setElsewhere: undefined,
      },
    });
  });
});
