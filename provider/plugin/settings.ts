/**
 * The plugin side's configuration: what the stack config hands over, with the environment as
 * fallback, resolved per connection into a base URL and a token. The keys are in connections.ts.
 */
import { StorageUserError } from "../errors";
import { neverShow } from "../redaction";
import { configKeys, connectionsKey, Entry, parseConnections, SettingName, settingKeys } from "../connections";

type Stack = { baseUrl?: string; accessToken?: string; connections?: Record<string, Entry>; connectionsError?: Error };

/**
 * One provider's settings: each entry (the dynamic provider's runtime.ts, the package's plugin)
 * makes its own and hands it what its protocol delivers; nothing is shared between them.
 */
export class Settings {
  private fromStack: Stack | undefined;
  /** Each connection's base URL (or why it has none), parsed once per configure: check and diff ask for every resource. */
  private readonly baseUrls = new Map<string | undefined, URL | Error>();

  /**
   * @param namespace the package plugin's config namespace: its Configure carries only its own
   * keys (`<namespace>:baseUrl`, `<namespace>:accessToken`), and named connections come from the
   * environment only (several services: one explicit provider each). Absent: the dynamic
   * provider, which reads `storage:*`.
   */
  constructor(private readonly namespace?: string) {}

  /**
   * The stack config (the dynamic provider's `configure` hook, or the plugin's Configure). Must
   * stay synchronous: the dynamic-provider plugin caches the provider before awaiting configure,
   * so a concurrent call may run right after. A malformed `storage:connections` is kept as an
   * error for the calls that need it.
   */
  configure(config: { get(key: string): string | undefined }): void {
    this.baseUrls.clear();
    let connections: Record<string, Entry> | undefined;
    let connectionsError: Error | undefined;
    try {
      connections = parseConnections(config.get(connectionsKey));
    } catch (err) {
      connectionsError = err as Error;
    }
    this.fromStack = {
      baseUrl: config.get(configKeys.baseUrl.key),
      accessToken: config.get(configKeys.accessToken.key),
      connections,
      connectionsError,
    };
  }

  private lookup(
    which: SettingName,
    connection?: string,
  ): { value?: string; source: string; key: string; env: string; path: boolean } {
    const keys = settingKeys(which, connection);
    const { env, path } = keys;
    // The plugin's keys: its own namespace; "" for a connection's, which it reads from the environment only.
    const key =
      this.namespace === undefined
        ? keys.key
        : connection === undefined
          ? keys.key.replace(/^storage:/, `${this.namespace}:`)
          : "";
    let stackValue: string | undefined;
    if (connection === undefined) stackValue = this.fromStack?.[which];
    else {
      if (this.fromStack?.connectionsError) throw this.fromStack.connectionsError;
      stackValue = this.fromStack?.connections?.[connection]?.[which];
    }
    if (stackValue !== undefined && stackValue !== "") return { value: stackValue, source: key, key, env, path };
    const envValue = process.env[env];
    if (envValue !== undefined && envValue !== "") return { value: envValue, source: env, key, env, path };
    return { source: key, key, env, path };
  }

  /** The base URL, or an error naming the key and the fix. Never needs the token. */
  resolveBaseUrl(connection?: string): URL {
    let url = this.baseUrls.get(connection);
    if (url === undefined) {
      const { value, source, key, env, path } = this.lookup("baseUrl", connection);
      try {
        if (value === undefined)
          throw new StorageUserError("CONFIG_MISSING", { setting: "address", connection, key, env, path });
        url = parseBaseUrl(value, source);
      } catch (err) {
        url = err as Error;
      }
      this.baseUrls.set(connection, url);
    }
    if (url instanceof Error) throw url;
    return url;
  }

  resolveAccessToken(connection?: string): string {
    const { value, source, key, env, path } = this.lookup("accessToken", connection);
    if (value === undefined)
      throw new StorageUserError("CONFIG_MISSING", { setting: "access token", connection, key, env, path });
    neverShow(value);
    if (/[\r\n\0]/.test(value) || value.trim() !== value)
      throw new StorageUserError("CONFIG_INVALID", { problem: "tokenWhitespace", source });
    return value;
  }

  /** Each setting with the config key or environment variable it was read from, for the hints in errors. */
  resolve(connection?: string): {
    baseUrl: URL;
    accessToken: string;
    baseUrlSource: string;
    accessTokenSource: string;
  } {
    return {
      baseUrl: this.resolveBaseUrl(connection),
      accessToken: this.resolveAccessToken(connection),
      baseUrlSource: this.lookup("baseUrl", connection).source,
      accessTokenSource: this.lookup("accessToken", connection).source,
    };
  }
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

const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/i;

export function parseBaseUrl(raw: string, source: string = configKeys.baseUrl.key): URL {
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
