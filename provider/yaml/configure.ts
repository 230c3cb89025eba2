/**
 * Configure's values for the package's plugin. `@pulumi/pulumi/provider`'s server answers Configure
 * itself and hands the provider nothing (provider/server.js `configure`), so its gRPC handler is
 * wrapped where it is registered. The engine marks secret config with the secret signature
 * (the request says `acceptSecrets`); the deprecated `variables` map, unmarked, is not read.
 */
import * as path from "node:path";
import { createRequire } from "node:module";
import { StorageUserError } from "../errors";

const SIG = "4dabf18193072939515e22adb298388d";
const SECRET = "1b47061264138c4ac30d75fd1eb44270";

/** The settings the plugin reads, as Configure delivered them. */
export type ConfigureValues = {
  /** `<stack>` from the provider's URN, for the hint of a refusal. */
  stack?: string;
  /** Each input by key (no namespace): its value as text, and whether the engine marked it secret. */
  values: Record<string, { value: string; secret: boolean }>;
};

type GrpcCall = { request: { getArgs(): { toJavaScript(): Record<string, unknown> } | undefined; getUrn(): string } };
type GrpcCallback = (err: unknown, resp?: unknown) => void;

const isSecret = (v: unknown): v is { value: unknown } =>
  typeof v === "object" && v !== null && (v as Record<string, unknown>)[SIG] === SECRET;

/** What one Configure request carries, secret markers read and values as text (objects as JSON). */
export function valuesOf(call: GrpcCall): ConfigureValues {
  const args = call.request.getArgs()?.toJavaScript() ?? {};
  const values: ConfigureValues["values"] = {};
  for (const [key, raw] of Object.entries(args)) {
    const secret = isSecret(raw);
    const v = secret ? raw.value : raw;
    if (v === null || v === undefined) continue;
    values[key] = { value: typeof v === "string" ? v : JSON.stringify(v), secret };
  }
  // urn:pulumi:<stack>::<project>::pulumi:providers:storage-user::<name>
  const stack = /^urn:pulumi:([^:]+)::/.exec(call.request.getUrn() ?? "")?.[1];
  return { stack, values };
}

/**
 * Checks what Configure delivered and returns the settings: `baseUrl` and a **secret**
 * `accessToken`. Refuses, naming the key and never a value: a token the engine did not mark
 * secret (Pulumi writes such config into the state as the provider's inputs, in clear), and any
 * other key (a misspelt `storage-user:accessTokn` would sit in the state just as plainly).
 */
export function settingsOf(c: ConfigureValues, namespace: string): { baseUrl?: string; accessToken?: string } {
  // `version`, `pluginDownloadURL`...: the engine's own inputs of a provider resource.
  const engineKeys = new Set(["version", "pluginDownloadURL", "pluginChecksums", "name", "parameterization"]);
  const unknown = Object.keys(c.values)
    .filter((k) => k !== "baseUrl" && k !== "accessToken" && !engineKeys.has(k))
    .sort();
  if (unknown.length > 0)
    throw new StorageUserError("CONFIG_INVALID", { problem: "unknownProviderKeys", namespace, keys: unknown });
  const token = c.values.accessToken;
  if (token !== undefined && !token.secret) {
    throw new StorageUserError("CONFIG_NOT_SECRET", {
      key: `${namespace}:accessToken`,
      where: `Pulumi.${c.stack ?? "<stack>"}.yaml, or a provider argument`,
      path: false,
      env: "STORAGE_ACCESS_TOKEN",
    });
  }
  return { baseUrl: c.values.baseUrl?.value, accessToken: token?.value };
}

/** customTimeouts.create per URN, as Create requests carry it, for the plugin's create. */
export const createTimeoutsMs = new Map<string, number>();

/**
 * Makes the SDK's provider server call `onConfigure` with each Configure request before it
 * answers it (an error thrown there fails the call with its message), and keeps each Create
 * request's `timeout` (the resource's customTimeouts.create, in seconds), which the server's
 * create drops (provider/server.js reads only the URN and properties), in `createTimeoutsMs`.
 * Call it once, before `@pulumi/pulumi/provider`'s `main`.
 */
export function receiveConfigure(onConfigure: (values: ConfigureValues) => void): void {
  // The @grpc/grpc-js the SDK's server uses, wherever the package manager put it.
  const sdkRequire = createRequire(
    path.join(path.dirname(require.resolve("@pulumi/pulumi/provider/server")), "server.js"),
  );
  const grpc = sdkRequire("@grpc/grpc-js") as {
    Server: {
      prototype: { addService(service: Record<string, { path?: string }>, impl: Record<string, unknown>): void };
    };
    status: { FAILED_PRECONDITION: number };
  };
  // eslint-disable-next-line @typescript-eslint/unbound-method -- kept to be called with the server as `this` below
  const addService = grpc.Server.prototype.addService;
  grpc.Server.prototype.addService = function (service, impl) {
    if (service.configure?.path === "/pulumirpc.ResourceProvider/Configure" && typeof impl.configure === "function") {
      const sdkConfigure = (impl.configure as (call: GrpcCall, cb: GrpcCallback) => void).bind(impl);
      impl.configure = (call: GrpcCall, callback: GrpcCallback) => {
        try {
          onConfigure(valuesOf(call));
        } catch (err) {
          callback({
            code: grpc.status.FAILED_PRECONDITION,
            details: err instanceof Error ? err.message : String(err),
          });
          return;
        }
        sdkConfigure(call, callback);
      };
    }
    if (typeof impl.create === "function") {
      const sdkCreate = (impl.create as (call: CreateCall, cb: GrpcCallback) => void).bind(impl);
      impl.create = (call: CreateCall, callback: GrpcCallback) => {
        const seconds = call.request.getTimeout?.() ?? 0;
        if (seconds > 0) createTimeoutsMs.set(call.request.getUrn(), seconds * 1000);
        sdkCreate(call, callback);
      };
    }
    return addService.call(this, service, impl);
  };
}

type CreateCall = { request: { getUrn(): string; getTimeout?(): number } };
