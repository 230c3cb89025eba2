/**
 * Where a connection's settings come from, read by both sides: the stack config keys and their
 * environment fallbacks, connection names, and the `storage:connections` object checked entry
 * by entry. The program checks that tokens are secret (program/stack-config.ts); the plugin
 * resolves them (plugin/settings.ts).
 */
import { argumentReasons, StorageUserError } from "./errors";

/** Stack config keys and their environment fallbacks. Stack config wins over the environment. */
export const configKeys = {
  baseUrl: { key: "storage:baseUrl", env: "STORAGE_API_URL" },
  accessToken: { key: "storage:accessToken", env: "STORAGE_ACCESS_TOKEN" },
} as const;

/** The stack config object of named connections: `{ <name>: { baseUrl, accessToken } }`. */
export const connectionsKey = "storage:connections";

/** Every key of the `storage` config namespace; anything else there is a typo (unknownStorageKeys). */
export const storageKeys: readonly string[] = [configKeys.baseUrl.key, configKeys.accessToken.key, connectionsKey];

/**
 * Keys in the `storage` namespace that are none of storageKeys, e.g. `storage:accessTokn`. Such a
 * key reaches nothing, and Pulumi writes a plain config value into the state as an input of the
 * dynamic provider: a token set under a misspelt key, without --secret, would sit there in clear.
 */
export function unknownStorageKeys(keys: Iterable<string>, project: string | undefined): string[] {
  // A project named "storage" has its own keys in that namespace: nothing to tell apart then.
  if (project === "storage") return [];
  return [...keys].filter((k) => k.startsWith("storage:") && !storageKeys.includes(k)).sort();
}

/**
 * Connection names: lower-case letters, digits and `_`, starting with a letter, so that each
 * maps to exactly one environment variable suffix (`eu_west` → `STORAGE_API_URL_EU_WEST`).
 */
export const CONNECTION_NAME = /^[a-z][a-z0-9_]{0,62}$/;

export type SettingName = keyof typeof configKeys;

/** Where one setting of one connection is read from: a stack config key, then an environment variable. */
export function settingKeys(which: SettingName, connection?: string): { key: string; env: string; path: boolean } {
  if (connection === undefined) return { ...configKeys[which], path: false };
  return {
    key: `${connectionsKey}.${connection}.${which}`,
    env: `${configKeys[which].env}_${connection.toUpperCase()}`,
    path: true,
  };
}

export type Entry = { baseUrl?: string; accessToken?: string };

/** `storage:connections` as Pulumi hands it over (a JSON text), checked entry by entry. Never echoes values. */
export function parseConnections(raw: string | undefined): Record<string, Entry> | undefined {
  if (raw === undefined || raw === "") return undefined;
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    value = undefined;
  }
  if (value === null || typeof value !== "object" || Array.isArray(value))
    throw new StorageUserError("CONFIG_INVALID", { problem: "connectionsNotObject", key: connectionsKey });
  const out: Record<string, Entry> = {};
  for (const [name, entry] of Object.entries(value as Record<string, unknown>)) {
    if (!CONNECTION_NAME.test(name))
      throw new StorageUserError("CONFIG_INVALID", { problem: "badConnectionName", key: connectionsKey, name });
    if (entry === null || typeof entry !== "object" || Array.isArray(entry))
      throw new StorageUserError("CONFIG_INVALID", { problem: "entryNotObject", entry: `${connectionsKey}.${name}` });
    const unknown = Object.keys(entry).filter((k) => k !== "baseUrl" && k !== "accessToken");
    if (unknown.length > 0)
      throw new StorageUserError("CONFIG_INVALID", {
        problem: "unknownEntryKeys",
        entry: `${connectionsKey}.${name}`,
        keys: unknown,
      });
    for (const k of ["baseUrl", "accessToken"] as const) {
      const v = (entry as Record<string, unknown>)[k];
      if (v !== undefined && typeof v !== "string")
        throw new StorageUserError("CONFIG_INVALID", {
          problem: "entryValueNotString",
          key: `${connectionsKey}.${name}.${k}`,
          secret: k === "accessToken",
        });
    }
    out[name] = entry;
  }
  return out;
}

/**
 * Refuses, naming the key and never its value, every key under `storage:` that is not a setting:
 * a misspelt top-level key, a setting given as an object (`--path storage:baseUrl.x`), and any
 * malformed or misspelt entry of `storage:connections`, whether or not a resource uses it.
 * Pulumi writes plain config into the state as an input of the dynamic provider, so a token
 * under a misspelt key would sit there in clear; refused before anything registers, it never
 * does. `values`: the config by full key, as text (objects as JSON).
 */
export function assertStorageConfig(values: Record<string, string | undefined>, project: string | undefined): void {
  const unknown = unknownStorageKeys(Object.keys(values), project);
  if (unknown.length > 0) throw new StorageUserError("CONFIG_INVALID", { problem: "unknownKeys", keys: unknown });
  for (const { key } of Object.values(configKeys)) {
    if (isStructured(values[key]))
      throw new StorageUserError("CONFIG_INVALID", {
        problem: "settingNotString",
        key,
        secret: key === configKeys.accessToken.key,
      });
  }
  parseConnections(values[connectionsKey]);
}

/** A value Pulumi handed over as a JSON object or list: set with `--path key.sub` or as YAML structure. */
function isStructured(value: string | undefined): boolean {
  if (value === undefined || !/^\s*[[{]/.test(value)) return false;
  try {
    const parsed: unknown = JSON.parse(value);
    return typeof parsed === "object" && parsed !== null;
  } catch {
    return false;
  }
}

/** A connection name given as the `connection` argument, or a reason it is not one. */
export function checkConnectionName(value: unknown): string | undefined {
  if (typeof value !== "string") return argumentReasons.connectionNotString(connectionsKey, value);
  return CONNECTION_NAME.test(value) ? undefined : argumentReasons.notAConnectionName(value);
}
