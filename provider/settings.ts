import { ConfigInvalidError, ConfigMissingError } from "./errors";

/** Stack config keys and their environment fallbacks. Stack config wins over the environment. */
export const configKeys = {
  baseUrl: { key: "storage:baseUrl", env: "STORAGE_API_URL" },
  accessToken: { key: "storage:accessToken", env: "STORAGE_ACCESS_TOKEN" },
} as const;

/** The stack config object of named connections: `{ <name>: { baseUrl, accessToken } }`. */
export const connectionsKey = "storage:connections";

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

/** What a StorageUser's connection is called in messages. */
export function connectionLabel(connection?: string): string {
  return connection === undefined ? "the default connection (storage:baseUrl)" : `connection '${connection}'`;
}

export interface ConfigSource {
  get(key: string): string | undefined;
}

export interface Settings {
  baseUrl: URL;
  accessToken: string;
}

type Entry = { baseUrl?: string; accessToken?: string };
let fromStack: { baseUrl?: string; accessToken?: string; connections?: Record<string, Entry>; connectionsError?: Error } | undefined;

/** `storage:connections` as Pulumi hands it over (a JSON text), checked entry by entry. Never echoes values. */
export function parseConnections(raw: string | undefined): Record<string, Entry> | undefined {
  if (raw === undefined || raw === "") return undefined;
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    value = undefined;
  }
  const set = "set entries with `pulumi config set --path storage:connections.<name>.baseUrl https://…` and `pulumi config set --path --secret storage:connections.<name>.accessToken <token>`";
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new ConfigInvalidError(`${connectionsKey} is not an object of named connections`, set);
  }
  const out: Record<string, Entry> = {};
  for (const [name, entry] of Object.entries(value as Record<string, unknown>)) {
    if (!CONNECTION_NAME.test(name)) {
      throw new ConfigInvalidError(
        `${connectionsKey} has an entry named ${JSON.stringify(name.slice(0, 64))}`,
        "connection names are lower-case letters, digits and _, starting with a letter (e.g. eu_west): rename it",
      );
    }
    if (entry === null || typeof entry !== "object" || Array.isArray(entry)) {
      throw new ConfigInvalidError(`${connectionsKey}.${name} is not an object with baseUrl and accessToken`, set);
    }
    const unknown = Object.keys(entry).filter((k) => k !== "baseUrl" && k !== "accessToken");
    if (unknown.length > 0) {
      throw new ConfigInvalidError(
        `${connectionsKey}.${name} has ${unknown.map((k) => JSON.stringify(k.slice(0, 40))).join(", ")}, which is not a connection setting`,
        "a connection has only baseUrl and accessToken (mind the spelling): remove or rename it",
      );
    }
    for (const k of ["baseUrl", "accessToken"] as const) {
      const v = (entry as Record<string, unknown>)[k];
      if (v !== undefined && typeof v !== "string") {
        throw new ConfigInvalidError(`${connectionsKey}.${name}.${k} is not a string`, `set it with \`pulumi config set --path${k === "accessToken" ? " --secret" : ""} ${connectionsKey}.${name}.${k} …\``);
      }
    }
    out[name] = entry as Entry;
  }
  return out;
}

/**
 * Called from the dynamic provider's `configure` hook. Must stay synchronous: the plugin
 * caches the provider before awaiting configure, so a concurrent call may run right after.
 * A malformed `storage:connections` is kept as an error for the calls that need it.
 */
export function configure(config: ConfigSource): void {
  let connections: Record<string, Entry> | undefined;
  let connectionsError: Error | undefined;
  try {
    connections = parseConnections(config.get(connectionsKey));
  } catch (err) {
    connectionsError = err as Error;
  }
  fromStack = {
    baseUrl: config.get(configKeys.baseUrl.key),
    accessToken: config.get(configKeys.accessToken.key),
    connections,
    connectionsError,
  };
}

function lookup(which: SettingName, connection?: string): { value?: string; source: string; env: string; path: boolean } {
  const { key, env, path } = settingKeys(which, connection);
  let stackValue: string | undefined;
  if (connection === undefined) stackValue = fromStack?.[which];
  else {
    if (fromStack?.connectionsError) throw fromStack.connectionsError;
    stackValue = fromStack?.connections?.[connection]?.[which];
  }
  if (stackValue !== undefined && stackValue !== "") return { value: stackValue, source: key, env, path };
  const envValue = process.env[env];
  if (envValue !== undefined && envValue !== "") return { value: envValue, source: env, env, path };
  return { source: key, env, path };
}

/**
 * The environment variable that says "the service users are recorded on now answers at this
 * address": users whose connection points there are re-recorded on it by the next `pulumi up`.
 */
export const newAddressEnv = "STORAGE_SERVICE_NEW_ADDRESS";

/** That address, normalized like a recorded base URL, or undefined when unset or not a URL. */
export function declaredNewAddress(): string | undefined {
  const raw = process.env[newAddressEnv];
  if (!raw) return undefined;
  try {
    return parseBaseUrl(raw, newAddressEnv).href;
  } catch {
    return undefined;
  }
}

/** A connection name given as the `connection` argument, or a reason it is not one. */
export function checkConnectionName(value: unknown): string | undefined {
  if (typeof value !== "string") return `must be a string naming an entry of ${connectionsKey}, got ${value === null ? "null" : typeof value}`;
  if (!CONNECTION_NAME.test(value)) {
    return `${JSON.stringify(value.slice(0, 64))} is not a connection name: lower-case letters, digits and _, starting with a letter (e.g. "eu_west")`;
  }
  return undefined;
}

const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/i;

/** The base URL, or an error naming the key and the fix. Never needs the token. */
export function resolveBaseUrl(connection?: string): URL {
  const { value, source, env, path } = lookup("baseUrl", connection);
  if (value === undefined) {
    const key = settingKeys("baseUrl", connection).key;
    throw new ConfigMissingError(
      connection === undefined ? "no storage API address is configured" : `connection '${connection}' has no storage API address`,
      `run \`pulumi config set${path ? " --path" : ""} ${key} https://<api-host>\`, or set ${env} in the environment of the pulumi command (setting process.env in the program does not reach the provider)`,
    );
  }
  return parseBaseUrl(value, source);
}

export function parseBaseUrl(raw: string, source: string = configKeys.baseUrl.key): URL {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new ConfigInvalidError(
      `${source} is not an absolute URL`,
      `set it to the API root, e.g. https://api.example.com (got ${JSON.stringify(raw.slice(0, 100))})`,
    );
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw new ConfigInvalidError(`${source} uses ${url.protocol}`, "use an https:// URL");
  }
  if (url.protocol === "http:" && !LOOPBACK.test(url.hostname)) {
    throw new ConfigInvalidError(
      `${source} is plain http:// to ${url.hostname}, which would send the token and the returned credentials unencrypted`,
      "use https:// (plain http is accepted only for localhost/127.0.0.1/[::1])",
    );
  }
  if (url.username || url.password) {
    throw new ConfigInvalidError(
      `${source} contains user info (user:password@)`,
      "remove it from the URL; the API token goes in the connection's accessToken (secret config)",
    );
  }
  if (url.search || url.hash) {
    throw new ConfigInvalidError(
      `${source} has a query or fragment`,
      "set it to the API root without ?... or #...; the provider appends /storage/users",
    );
  }
  return url;
}

export function resolveAccessToken(connection?: string): string {
  const { value, source, env, path } = lookup("accessToken", connection);
  if (value === undefined) {
    const key = settingKeys("accessToken", connection).key;
    throw new ConfigMissingError(
      connection === undefined ? "no storage API access token is configured" : `connection '${connection}' has no storage API access token`,
      `run \`pulumi config set${path ? " --path" : ""} --secret ${key} <token>\`, or set ${env} in the environment of the pulumi command (preview needs no token; create does)`,
    );
  }
  if (/[\r\n\0]/.test(value) || value.trim() !== value) {
    throw new ConfigInvalidError(
      `${source} contains whitespace or control characters at its ends or inside`,
      "set the token again without line breaks or surrounding spaces",
    );
  }
  return value;
}

export function resolveSettings(connection?: string): Settings {
  return { baseUrl: resolveBaseUrl(connection), accessToken: resolveAccessToken(connection) };
}

/** `{baseUrl}/storage/users`, keeping any path prefix of the base URL. */
export function createUrl(baseUrl: URL): URL {
  const url = new URL(baseUrl.href);
  url.pathname = `${url.pathname.replace(/\/+$/, "")}/storage/users`;
  return url;
}
