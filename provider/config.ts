/**
 * The settings: which config keys and environment variables hold them, the one check of a stack's
 * configuration (used by the program, the Automation API helpers and the package's plugin), and
 * their resolution per connection into a base URL and a token (the plugin side).
 */
import { neverShow, StorageUserError } from "./messages";

/** TypeScript programs read `storage:`; the package's plugin (YAML, Go) reads `storage-user:` (docs/decisions.md). */
export type Namespace = "storage" | "storage-user";
export type Setting = "baseUrl" | "accessToken";
const env: Record<Setting, string> = { baseUrl: "STORAGE_API_URL", accessToken: "STORAGE_ACCESS_TOKEN" };
const CONNECTIONS = "storage:connections";
/** Names map to exactly one environment variable suffix (`eu_west` → `STORAGE_API_URL_EU_WEST`). */
export const CONNECTION_NAME = /^[a-z][a-z0-9_]{0,62}$/;

/**
 * Where one setting of one connection is read: a stack config key, then an environment variable.
 * The plugin reads named connections from the environment only (`key` "").
 */
export function settingKeys(which: Setting, connection?: string, ns: Namespace = "storage") {
  if (connection === undefined) return { key: `${ns}:${which}`, env: env[which], path: false };
  const key = ns === "storage" ? `${CONNECTIONS}.${connection}.${which}` : "";
  return { key, env: `${env[which]}_${connection.toUpperCase()}`, path: ns === "storage" };
}

type Entry = { baseUrl?: string; accessToken?: string };
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const json = (text: string | undefined): unknown => {
  try {
    return text === undefined ? undefined : JSON.parse(text);
  } catch {
    return undefined;
  }
};

/** The closest known key within a few edits of `key`, for "did you mean". */
function closest(key: string, known: readonly string[]): string | undefined {
  const distance = (a: string, b: string) => {
    let row = Array.from({ length: b.length + 1 }, (_, j) => j);
    for (let i = 1; i <= a.length; i++) {
      const next = [i];
      for (let j = 1; j <= b.length; j++)
        next[j] = Math.min(
          row[j] + 1,
          next[j - 1] + 1,
          row[j - 1] + (a[i - 1].toLowerCase() === b[j - 1].toLowerCase() ? 0 : 1),
        );
      row = next;
    }
    return row[b.length];
  };
  const [best] = known.map((k) => [k, distance(key, k)] as const).sort((x, y) => x[1] - y[1]);
  return best && best[1] <= 3 ? best[0] : undefined;
}

function refuseUnknown(keys: string[], known: readonly string[], path = false): void {
  if (keys.length > 0)
    throw new StorageUserError("CONFIG_INVALID", {
      problem: "unknownKeys",
      keys: keys.sort(),
      known,
      path,
      suggest: closest(keys[0], known),
    });
}

/** `storage:connections` as Pulumi hands it over (JSON text), checked entry by entry, never echoing a value. */
export function parseConnections(raw: string | undefined): Record<string, Entry> {
  if (raw === undefined || raw === "") return {};
  const value = json(raw);
  if (!isObject(value))
    throw new StorageUserError("CONFIG_INVALID", {
      problem: "notAnObject",
      key: CONNECTIONS,
      expected: "an object of named connections",
    });
  for (const [name, entry] of Object.entries(value)) {
    const key = `${CONNECTIONS}.${name}`;
    if (!CONNECTION_NAME.test(name))
      throw new StorageUserError("CONFIG_INVALID", { problem: "badConnectionName", key: CONNECTIONS, name });
    if (!isObject(entry))
      throw new StorageUserError("CONFIG_INVALID", {
        problem: "notAnObject",
        key,
        expected: "an object with baseUrl and accessToken",
      });
    const known = (["baseUrl", "accessToken"] as const).map((s) => `${key}.${s}`);
    refuseUnknown(
      Object.keys(entry)
        .map((k) => `${key}.${k}`)
        .filter((k) => !known.includes(k)),
      known,
      true,
    );
    for (const s of ["baseUrl", "accessToken"] as const)
      if (entry[s] !== undefined && typeof entry[s] !== "string")
        throw new StorageUserError("CONFIG_INVALID", {
          problem: "notAString",
          key: `${key}.${s}`,
          secret: s === "accessToken",
          path: true,
        });
  }
  return value as Record<string, Entry>;
}

/** Where a token was found in plain text, for CONFIG_NOT_SECRET; undefined: secret, or not known to be plain. */
export type PlainAt = { where: string; project?: boolean; inline?: boolean } | undefined;

/**
 * The one check of a stack's configuration, before anything is registered or recorded: every key
 * of the namespace is a setting (a misspelt key would sit in the state as the provider's input),
 * each setting is one value, each `storage:connections` entry is well-formed, and no token is
 * plain (`plainAt` tells, per token key, from what the caller can see). Names keys, never values.
 * `values`: the config by full key, as text (objects as JSON).
 */
export function checkConfig(
  values: Record<string, string | undefined>,
  plainAt: (key: string, value: string) => PlainAt,
  { ns = "storage", project }: { ns?: Namespace; project?: string } = {},
): void {
  const known = ["baseUrl", "accessToken", ...(ns === "storage" ? ["connections"] : [])].map((s) => `${ns}:${s}`);
  // A project named like the namespace has keys of its own there.
  if (project !== ns)
    refuseUnknown(
      Object.keys(values).filter((k) => k.startsWith(`${ns}:`) && !known.includes(k)),
      known,
    );
  for (const s of ["baseUrl", "accessToken"] as const) {
    const key = `${ns}:${s}`;
    if (typeof json(values[key]) === "object" && json(values[key]) !== null)
      throw new StorageUserError("CONFIG_INVALID", {
        problem: "notAString",
        key,
        secret: s === "accessToken",
        path: false,
      });
  }
  const tokens = [{ ...settingKeys("accessToken", undefined, ns), value: values[`${ns}:accessToken`] }];
  if (ns === "storage")
    for (const [name, entry] of Object.entries(parseConnections(values[CONNECTIONS])))
      tokens.push({ ...settingKeys("accessToken", name), value: entry.accessToken });
  for (const { value, ...keys } of tokens) {
    const plain = value ? plainAt(keys.key, value) : undefined;
    if (plain) throw new StorageUserError("CONFIG_NOT_SECRET", { ...keys, ...plain });
  }
}

const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/i;

/** A base URL as the provider accepts it: absolute, https (plain http to loopback only), no user info, query or fragment. */
export function parseBaseUrl(raw: string, source: string): URL {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new StorageUserError("CONFIG_INVALID", { problem: "notAbsoluteUrl", source, raw });
  }
  if (url.protocol !== "https:" && url.protocol !== "http:")
    throw new StorageUserError("CONFIG_INVALID", { problem: "notHttp", source, protocol: url.protocol });
  if (url.protocol === "http:" && !LOOPBACK.test(url.hostname))
    throw new StorageUserError("CONFIG_INVALID", { problem: "plainHttp", source, host: url.hostname });
  if (url.username || url.password) throw new StorageUserError("CONFIG_INVALID", { problem: "userInfo", source });
  if (url.search || url.hash) throw new StorageUserError("CONFIG_INVALID", { problem: "queryOrFragment", source });
  return url;
}

/** The address STORAGE_SERVICE_NEW_ADDRESS declares the same service as a recorded one, normalized; undefined when unset or invalid. */
export function declaredNewAddress(): string | undefined {
  const raw = process.env.STORAGE_SERVICE_NEW_ADDRESS;
  try {
    return raw ? parseBaseUrl(raw, "STORAGE_SERVICE_NEW_ADDRESS").href : undefined;
  } catch {
    return undefined;
  }
}

/** One connection's settings, with where each was read (for the hints in errors). */
export interface Resolved {
  baseUrl: URL;
  accessToken: string;
  baseUrlSource: string;
  accessTokenSource: string;
}

/**
 * One provider's settings on the plugin side: the stack config it was configured with (stack config
 * wins), the environment as fallback. `configure` stays synchronous: the dynamic-provider plugin
 * caches the provider before awaiting it, so a concurrent call may run right after.
 */
export class Settings {
  private stack: { get(key: string): string | undefined } = { get: () => undefined };
  private readonly urls = new Map<string | undefined, URL | Error>();

  constructor(readonly ns: Namespace = "storage") {}

  configure(config: { get(key: string): string | undefined }): void {
    this.stack = config;
    this.urls.clear();
  }

  private lookup(which: Setting, connection?: string) {
    const keys = settingKeys(which, connection, this.ns);
    const fromStack =
      connection === undefined
        ? this.stack.get(keys.key)
        : this.ns === "storage"
          ? parseConnections(this.stack.get(CONNECTIONS))[connection]?.[which]
          : undefined;
    const fromEnv = process.env[keys.env];
    const value = fromStack || fromEnv || undefined;
    return { ...keys, value, source: fromStack ? keys.key : fromEnv ? keys.env : keys.key };
  }

  /** The base URL, or an error naming the key and the fix; parsed once per configure. Never needs the token. */
  baseUrl(connection?: string): URL {
    let url = this.urls.get(connection);
    if (url === undefined) {
      try {
        const { value, source, ...keys } = this.lookup("baseUrl", connection);
        if (value === undefined)
          throw new StorageUserError("CONFIG_MISSING", { setting: "address", connection, ...keys });
        url = parseBaseUrl(value, source);
      } catch (err) {
        url = err as Error;
      }
      this.urls.set(connection, url);
    }
    if (url instanceof Error) throw url;
    return url;
  }

  resolve(connection?: string): Resolved {
    const baseUrl = this.baseUrl(connection);
    const { value, source, ...keys } = this.lookup("accessToken", connection);
    if (value === undefined)
      throw new StorageUserError("CONFIG_MISSING", { setting: "access token", connection, ...keys });
    neverShow(value);
    if (/[\r\n\0]/.test(value) || value.trim() !== value)
      throw new StorageUserError("CONFIG_INVALID", { problem: "tokenWhitespace", source });
    return {
      baseUrl,
      accessToken: value,
      baseUrlSource: this.lookup("baseUrl", connection).source,
      accessTokenSource: source,
    };
  }
}
