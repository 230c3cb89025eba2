import { ConfigInvalidError, ConfigMissingError } from "./errors";

/** Stack config keys and their environment fallbacks. Stack config wins over the environment. */
export const configKeys = {
  baseUrl: { key: "storage:baseUrl", env: "STORAGE_API_URL" },
  accessToken: { key: "storage:accessToken", env: "STORAGE_ACCESS_TOKEN" },
} as const;

export interface ConfigSource {
  get(key: string): string | undefined;
}

export interface Settings {
  baseUrl: URL;
  accessToken: string;
}

let fromStack: { baseUrl?: string; accessToken?: string } | undefined;

/**
 * Called from the dynamic provider's `configure` hook. Must stay synchronous: the plugin
 * caches the provider before awaiting configure, so a concurrent call may run right after.
 */
export function configure(config: ConfigSource): void {
  fromStack = {
    baseUrl: config.get(configKeys.baseUrl.key),
    accessToken: config.get(configKeys.accessToken.key),
  };
}

function lookup(which: keyof typeof configKeys): { value?: string; source: string } {
  const { key, env } = configKeys[which];
  const stackValue = fromStack?.[which];
  if (stackValue !== undefined && stackValue !== "") return { value: stackValue, source: key };
  const envValue = process.env[env];
  if (envValue !== undefined && envValue !== "") return { value: envValue, source: env };
  return { source: key };
}

const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/i;

/** The base URL, or an error naming the key and the fix. Never needs the token. */
export function resolveBaseUrl(): URL {
  const { value, source } = lookup("baseUrl");
  if (value === undefined) {
    throw new ConfigMissingError(
      "no storage API address is configured",
      "run `pulumi config set storage:baseUrl https://<api-host>` or set STORAGE_API_URL",
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
      "remove it from the URL; the API token goes in storage:accessToken",
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

export function resolveAccessToken(): string {
  const { value, source } = lookup("accessToken");
  if (value === undefined) {
    throw new ConfigMissingError(
      "no storage API access token is configured",
      "run `pulumi config set --secret storage:accessToken <token>` or set STORAGE_ACCESS_TOKEN (preview needs no token; create does)",
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

export function resolveSettings(): Settings {
  return { baseUrl: resolveBaseUrl(), accessToken: resolveAccessToken() };
}

/** `{baseUrl}/storage/users`, keeping any path prefix of the base URL. */
export function createUrl(baseUrl: URL): URL {
  const url = new URL(baseUrl.href);
  url.pathname = `${url.pathname.replace(/\/+$/, "")}/storage/users`;
  return url;
}
