// storage:connections and the per-connection keys as the plugin reads them, called directly (no
// CLI): entries checked by name and key, environment fallbacks, stack config first.
// test/e2e/connections.test.ts runs named connections through the CLI.
import { describe, expect, test } from "vitest";
import { parseConnections, settingKeys } from "../../provider/connections";
import { Settings } from "../../provider/plugin/settings";

describe("storage:connections as the plugin reads it (no CLI)", () => {
  test("entries are checked by name and key, values never echoed", () => {
    expect(parseConnections(undefined)).toBeUndefined();
    expect(parseConnections(JSON.stringify({ eu: { baseUrl: "https://x", accessToken: "t" } }))).toEqual({
      eu: { baseUrl: "https://x", accessToken: "t" },
    });
    expect(() => parseConnections("[1]")).toThrow(
      "[CONFIG_INVALID] storage:connections is not an object of named connections",
    );
    expect(() => parseConnections(JSON.stringify({ "EU-West": {} }))).toThrow(
      '[CONFIG_INVALID] storage:connections has an entry named "EU-West"',
    );
    expect(() => parseConnections(JSON.stringify({ eu: { baseURL: "https://x" } }))).toThrow(
      'storage:connections.eu has "baseURL", which is not a connection setting',
    );
    expect(() => parseConnections(JSON.stringify({ eu: { accessToken: 42 } }))).toThrow(
      "storage:connections.eu.accessToken is not a string",
    );
    expect(() => parseConnections(JSON.stringify({ eu: "secret-value-xyz" }))).toThrow(/^(?!.*secret-value-xyz)/s);
  });

  test("each name has its own keys and environment fallbacks; stack config wins", () => {
    expect(settingKeys("baseUrl", "eu_west")).toEqual({
      key: "storage:connections.eu_west.baseUrl",
      env: "STORAGE_API_URL_EU_WEST",
      path: true,
    });
    expect(settingKeys("accessToken")).toEqual({
      key: "storage:accessToken",
      env: "STORAGE_ACCESS_TOKEN",
      path: false,
    });
    const env = { STORAGE_API_URL_EU: "https://env.example.com", STORAGE_ACCESS_TOKEN_EU: "env-token" };
    Object.assign(process.env, env);
    try {
      const settings = new Settings();
      settings.configure({ get: () => undefined });
      expect(settings.resolveBaseUrl("eu").href).toBe("https://env.example.com/");
      expect(settings.resolveAccessToken("eu")).toBe("env-token");
      expect(() => settings.resolveBaseUrl()).toThrow("[CONFIG_MISSING] no storage API address is configured");
      const config: Record<string, string> = {
        "storage:connections": JSON.stringify({ eu: { baseUrl: "https://cfg.example.com/api" } }),
      };
      settings.configure({ get: (k) => config[k] });
      expect(settings.resolveBaseUrl("eu").href).toBe("https://cfg.example.com/api");
      expect(settings.resolveAccessToken("eu")).toBe("env-token");
      expect(() => settings.resolveBaseUrl("us")).toThrow(
        "[CONFIG_MISSING] connection 'us' has no storage API address",
      );
    } finally {
      for (const k of Object.keys(env)) delete process.env[k];
    }
  });

  test("the package's plugin reads its own namespace, and each provider its own settings", () => {
    const [dynamic, plugin] = [new Settings(), new Settings("storage-user")];
    dynamic.configure({ get: (k) => ({ "storage:baseUrl": "https://dynamic.example.com" })[k] });
    plugin.configure({ get: () => undefined });
    expect(dynamic.resolveBaseUrl().href).toBe("https://dynamic.example.com/");
    // The plugin's message has no process.env hint: a YAML or Go program has no process.env to set.
    expect(() => plugin.resolveBaseUrl()).toThrow(
      /^\[CONFIG_MISSING\] no storage API address is configured: run `pulumi config set storage-user:baseUrl https:\/\/<api-host>`, or set STORAGE_API_URL in the environment of the pulumi command$/,
    );
    expect(() => new Settings().resolveBaseUrl()).toThrow(
      "(setting process.env in the program does not reach the provider)",
    );
  });
});
