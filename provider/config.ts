// The settings: their keys and variables, the one check of a stack's configuration (program, Automation API
// helpers, the package's plugin) and, plugin side, their resolution per connection.
import { ErrorArgs, neverShow, StorageUserError } from "./messages";
import { isObject, parseJson } from "./model";

/** TypeScript programs read `storage:`; the package's plugin (YAML, Go) reads `storage-user:` (docs/decisions.md). */
type Namespace = "storage" | "storage-user";
type Setting = "baseUrl" | "accessToken";
const env = { baseUrl: "STORAGE_API_URL", accessToken: "STORAGE_ACCESS_TOKEN" };
const CONNECTIONS = "storage:connections";
// One name, one variable suffix (`eu_west` → `STORAGE_API_URL_EU_WEST`).
export const CONNECTION_NAME = /^[a-z][a-z0-9_]{0,62}$/;
const invalid = (d: ErrorArgs<"CONFIG_INVALID">[1]) => new StorageUserError("CONFIG_INVALID", d);
// A setting's config key (none for the plugin's named connections) and environment variable.
export function settingKeys(which: Setting, connection?: string, ns: Namespace = "storage") {
  if (connection === undefined) return { key: `${ns}:${which}`, env: env[which], path: false };
  const path = ns === "storage";
  const key = path ? `${CONNECTIONS}.${connection}.${which}` : "";
  return { key, env: `${env[which]}_${connection.toUpperCase()}`, path };
}

function refuseUnknown(given: string[], known: string[], path = false): void {
  const keys = given.filter((k) => !known.includes(k));
  if (keys.length === 0) return;
  const distance = (a: string, b: string) => {
    let row = [...Array(b.length + 1).keys()];
    for (let i = 1; i <= a.length; i++) {
      const next = [i];
      for (let j = 1; j <= b.length; j++)
        next[j] = Math.min(row[j] + 1, next[j - 1] + 1, row[j - 1] + +(a[i - 1] !== b[j - 1]));
      row = next;
    }
    return row[b.length];
  };
  const [best] = known
    .map((k) => ({ k, d: distance(keys[0].toLowerCase(), k.toLowerCase()) }))
    .sort((x, y) => x.d - y.d);
  throw invalid({ problem: "unknownKeys", keys: keys.sort(), known, path, suggest: best?.d <= 3 ? best.k : undefined });
}

// `storage:connections` as Pulumi hands it over (JSON text), checked entry by entry.
function parseConnections(raw: string | undefined): Record<string, { baseUrl?: string; accessToken?: string }> {
  if (!raw) return {};
  const value = parseJson(raw);
  if (!isObject(value))
    throw invalid({ problem: "notAnObject", key: CONNECTIONS, expected: "an object of named connections" });
  for (const [name, entry] of Object.entries(value)) {
    const key = `${CONNECTIONS}.${name}`;
    if (!CONNECTION_NAME.test(name)) throw invalid({ problem: "badConnectionName", key: CONNECTIONS, name });
    if (!isObject(entry))
      throw invalid({ problem: "notAnObject", key, expected: "an object with baseUrl and accessToken" });
    const given = Object.keys(entry).map((k) => `${key}.${k}`);
    refuseUnknown(given, [`${key}.baseUrl`, `${key}.accessToken`], true);
    for (const s of ["baseUrl", "accessToken"])
      if (entry[s] !== undefined && typeof entry[s] !== "string")
        throw invalid({ problem: "notAString", key: `${key}.${s}`, secret: s === "accessToken", path: true });
  }
  return value as Record<string, { baseUrl?: string; accessToken?: string }>;
}

/** Where a token stands in plain text, for CONFIG_NOT_SECRET; undefined: secret, or not known to be plain. */
export type PlainAt = { where: string; project?: boolean; inline?: boolean } | undefined;

// The one check of a stack's configuration before anything is recorded: each key of the namespace a setting, one
// value each, no token plain (`plainAt` tells, from what its caller sees). Names keys, never values.
export function checkConfig(
  values: Record<string, string | undefined>,
  plainAt: (key: string, value: string) => PlainAt,
  { ns = "storage", project }: { ns?: Namespace; project?: string } = {},
): void {
  const known = ["baseUrl", "accessToken", ...(ns === "storage" ? ["connections"] : [])].map((s) => `${ns}:${s}`);
  const given = Object.keys(values).filter((k) => k.startsWith(`${ns}:`));
  // A project named like the namespace has keys of its own there.
  if (project !== ns) refuseUnknown(given, known);
  for (const s of ["baseUrl", "accessToken"] as const)
    if (parseJson(values[`${ns}:${s}`]) instanceof Object)
      throw invalid({ problem: "notAString", key: `${ns}:${s}`, secret: s === "accessToken", path: false });
  const tokens = [{ ...settingKeys("accessToken", undefined, ns), value: values[`${ns}:accessToken`] }];
  if (ns === "storage")
    for (const [name, entry] of Object.entries(parseConnections(values[CONNECTIONS])))
      tokens.push({ ...settingKeys("accessToken", name), value: entry.accessToken });
  for (const { value, ...keys } of tokens) {
    const plain = value ? plainAt(keys.key, value) : undefined;
    if (plain) throw new StorageUserError("CONFIG_NOT_SECRET", { ...keys, ...plain });
  }
}

function parseBaseUrl(raw: string, source: string): URL {
  if (!URL.canParse(raw.trim())) throw invalid({ problem: "notAbsoluteUrl", source, raw });
  const url = new URL(raw.trim());
  if (!/^https?:$/.test(url.protocol)) throw invalid({ problem: "notHttp", source, protocol: url.protocol });
  if (url.protocol === "http:" && !/^(localhost|127(\.\d{1,3}){3}|\[::1\])$/i.test(url.hostname))
    throw invalid({ problem: "plainHttp", source, host: url.hostname });
  if (url.username || url.password) throw invalid({ problem: "userInfo", source });
  if (url.search || url.hash) throw invalid({ problem: "queryOrFragment", source });
  return url;
}

// The address STORAGE_SERVICE_NEW_ADDRESS declares the same service as a recorded one.
export function declaredNewAddress(): string | undefined {
  const raw = process.env.STORAGE_SERVICE_NEW_ADDRESS;
  try {
    return raw ? parseBaseUrl(raw, "STORAGE_SERVICE_NEW_ADDRESS").href : undefined;
  } catch {
    return undefined;
  }
}

export type Resolved = { baseUrl: URL; accessToken: string; baseUrlSource: string; accessTokenSource: string };

// One provider's settings, stack config over environment. `configure` stays synchronous: the dynamic-provider
// plugin caches the provider before awaiting it, so a concurrent call may run right after.
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
    const stack =
      connection === undefined
        ? this.stack.get(keys.key)
        : keys.key && parseConnections(this.stack.get(CONNECTIONS))[connection]?.[which];
    const value = stack || process.env[keys.env] || undefined;
    // The same setting under the other language's namespace, which this provider does not read.
    const other = `${this.ns === "storage" ? "storage-user" : "storage"}:${which}`;
    const setElsewhere = value === undefined && connection === undefined && this.stack.get(other) ? other : undefined;
    return { ...keys, value, setElsewhere, source: stack ? keys.key : value ? keys.env : keys.key };
  }

  baseUrl(connection?: string): URL {
    if (!this.urls.has(connection))
      try {
        const { value, source, ...keys } = this.lookup("baseUrl", connection);
        if (value === undefined)
          throw new StorageUserError("CONFIG_MISSING", { setting: "address", connection, ...keys });
        this.urls.set(connection, parseBaseUrl(value, source));
      } catch (err) {
        this.urls.set(connection, err as Error);
      }
    const url = this.urls.get(connection)!;
    if (url instanceof Error) throw url;
    return url;
  }

  resolve(connection?: string): Resolved {
    const baseUrl = this.baseUrl(connection);
    const { value, source, ...keys } = this.lookup("accessToken", connection);
    if (value === undefined)
      throw new StorageUserError("CONFIG_MISSING", { setting: "access token", connection, ...keys });
    neverShow(value);
    if (/[\r\n\0]/.test(value) || value.trim() !== value) throw invalid({ problem: "tokenWhitespace", source });
    return {
      baseUrl,
      accessToken: value,
      baseUrlSource: this.lookup("baseUrl", connection).source,
      accessTokenSource: source,
    };
  }
}
