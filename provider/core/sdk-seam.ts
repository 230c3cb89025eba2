// Every reach into @pulumi/pulumi's internals or a JavaScript global, for the program side and the plugin: nowhere
// else in provider/ (test/unit/sdk-seam.test.ts holds it). Each reach checks that what it patches is there and has
// the shape it expects; when the SDK moved, it does nothing, says so in one debug line and never throws, so an SDK
// of the peer range this package was not tested with costs a speed-up or a nicety, never a run
// (test/e2e/sdk-seam.test.ts loads it at the lowest, the pinned and the newest @pulumi/pulumi).
import { AsyncLocalStorage } from "node:async_hooks";
import { createRequire } from "node:module";
import * as path from "node:path";

type Props = Record<string, unknown>;
type Callback = (err: unknown, resp?: unknown) => void;
type Handler = (call: { request: unknown }, callback: Callback) => void;

/** Each reach that found the SDK not as it expects: what it skipped, in the order met. */
export const skipped: string[] = [];
/** One debug line: the SDK moved, so `what` is not done. To stderr only when PULUMI_STORAGE_USER_DEBUG is set. */
function skip(what: string, why: unknown): undefined {
  const reason = (why instanceof Error ? why.message : String(why)).split("\n")[0];
  const line = `pulumi-storage-user: ${what} skipped: ${reason}`;
  if (skipped.includes(line)) return undefined;
  skipped.push(line);
  if (process.env.PULUMI_STORAGE_USER_DEBUG) console.error(line);
  return undefined;
}
const isFunction = (v: unknown): v is (...a: never[]) => unknown => typeof v === "function";

// The SDK's own modules, from the SDK the package resolves (its peer), and that SDK's own gRPC (pnpm does not hoist it).
// Found once, as the package loads: which SDK a process resolves does not change while it runs.
const sdkPackage: string | Error = (() => {
  try {
    return require.resolve("@pulumi/pulumi/package.json");
  } catch (err) {
    return err as Error;
  }
})();
const sdkRequire = typeof sdkPackage === "string" ? createRequire(sdkPackage) : undefined;
function fromSdk<T>(what: string, id: string): T | undefined {
  if (!sdkRequire) return skip(what, sdkPackage);
  try {
    return sdkRequire(id) as T;
  } catch (err) {
    return skip(what, err);
  }
}

// ---- the program side

type Store = { config?: Record<string, string> };
/** The SDK's per-run store (runtime/state): one service process runs many stacks' programs, each in a store of its own. */
export function runStore(): Store | undefined {
  const m = fromSdk<{ getStore?: () => Store }>("the per-run store", "./runtime/state");
  if (m && isFunction(m.getStore)) return m.getStore();
  return m && skip("the per-run store", "no getStore");
}

const runDirs = new AsyncLocalStorage<string>();
/** An inline program's RunRequest pwd: the project's main directory, where the engine starts its plugins. */
export const inlineRunDir = () => runDirs.getStore();
/** The SDK's LanguageServer (automation/server), which runs inline programs, drops the pwd: each run keeps it here. */
export function keepInlineRunDirs(): void {
  type Run = (this: unknown, call: { request?: { getPwd?(): string } }, callback: unknown) => unknown;
  const m = fromSdk<{ LanguageServer?: { prototype?: { run?: Run } } }>("an inline run's pwd", "./automation/server");
  const proto = m?.LanguageServer?.prototype;
  const run = proto?.run;
  if (!m || !proto || !isFunction(run)) return void (m && skip("an inline run's pwd", "no LanguageServer.run"));
  proto.run = function (call, callback) {
    return runDirs.run(call?.request?.getPwd?.() ?? "", () => run.call(this, call, callback));
  };
}

type Prepare = ((error: Error, frames: NodeJS.CallSite[]) => string) & { trims?: true };
/** The SDK's folder, with a separator at its end; a folder no file is in when it cannot be found. */
function sdkDir(): string {
  if (typeof sdkPackage === "string") return path.dirname(sdkPackage) + path.sep;
  skip("telling the SDK's frames", sdkPackage);
  return "\0";
}

/**
 * The SDK takes a resource's source position below its class (for ours, our constructor) and keeps in state every
 * frame under it, the run's own too. Until the program yields, a stack through `ownDir` has only the program's
 * frames under its first frame there, that one left out, and the SDK's above it unmapped: the SDK drops them.
 * With no stack formatter installed (ts-node's or source-map-support's), stacks are left whole.
 */
export function programStacks(ownDir: string): void {
  const prepare = Reflect.get(Error, "prepareStackTrace") as Prepare | undefined;
  if (typeof prepare !== "function" || prepare.trims) return;
  const sdk = sdkDir();
  const inProgram = (name: string) => (path.isAbsolute(name) || name.startsWith("file:")) && !name.startsWith(sdk);
  const trimmed: Prepare = (error, frames) => {
    const own = frames.findIndex((f) => f.getFileName()?.startsWith(ownDir));
    if (own < 0) return prepare(error, frames);
    const below = frames.slice(own + 1).filter((f) => inProgram(f.getFileName() ?? ""));
    const text = prepare(error, below);
    const at = `${text}\n    at `.indexOf("\n    at ");
    return [text.slice(0, at), ...frames.slice(0, own).map(String)].join("\n    at ") + text.slice(at);
  };
  Error.prepareStackTrace = Object.assign(trimmed, { trims: true as const });
  queueMicrotask(() => Error.prepareStackTrace === trimmed && (Error.prepareStackTrace = prepare));
}

const RESPONSE_DUMP = /^((?:RegisterResource|ReadResource|getResource Invoke) RPC finished: [\s\S]*?), resp: [\s\S]*$/;
const MARK = Symbol.for("pulumi-storage-user.debug-redaction");
type Debug = ((msg: string, ...rest: unknown[]) => Promise<void>) & { [MARK]?: true };

/**
 * Works around @pulumi/pulumi runtime/resource.js (3.139 to 3.276 at least), whose debug lines print outputs,
 * secrets in plain text: the SDK looks `log.debug` up at each call, so this wrapper cuts those dumps.
 */
export function redactResponseDumps(log: object): void {
  const target = log as { debug?: Debug };
  const original = target.debug;
  if (!isFunction(original)) return skip("cutting the SDK's response dumps", "log.debug is no function");
  if (original[MARK]) return;
  target.debug = Object.assign(
    (msg: string, ...rest: unknown[]) =>
      original(
        typeof msg === "string" ? msg.replace(RESPONSE_DUMP, "$1, resp: [omitted: holds secret values]") : msg,
        ...rest,
      ),
    { [MARK]: true as const },
  );
}

// ---- the plugin

type EnginePb = typeof import("@pulumi/pulumi/proto/engine_pb");
type EngineClient = InstanceType<typeof import("@pulumi/pulumi/proto/engine_grpc_pb").EngineClient>;
type Grpc = typeof import("@grpc/grpc-js");

/** A client of the engine's Log service at `address`: `log(severity, message, urn)`; null when the SDK moved. */
export function engineLog(
  address: string,
): { log(severity: "WARNING", message: string, urn: string | undefined): Promise<boolean> } | null {
  const grpc = fromSdk<Grpc>("warnings under their resource", "@grpc/grpc-js");
  const rpc = fromSdk<{ EngineClient?: unknown }>("warnings under their resource", "./proto/engine_grpc_pb");
  const pb = fromSdk<EnginePb>("warnings under their resource", "./proto/engine_pb");
  if (!grpc || !rpc || !pb) return null;
  if (!isFunction(rpc.EngineClient) || !isFunction(pb.LogRequest) || pb.LogSeverity?.WARNING === undefined)
    return skip("warnings under their resource", "no EngineClient, LogRequest or LogSeverity") ?? null;
  let client: EngineClient;
  try {
    client = new (rpc.EngineClient as unknown as new (a: string, c: unknown) => EngineClient)(
      address,
      grpc.credentials.createInsecure(),
    );
  } catch (err) {
    return skip("warnings under their resource", err) ?? null;
  }
  return {
    log: (severity, message, urn) => {
      const req = new pb.LogRequest();
      req.setSeverity(pb.LogSeverity[severity]);
      req.setMessage(message);
      if (urn) req.setUrn(urn);
      return new Promise((resolve) => client.log(req, (err) => resolve(!err)));
    },
  };
}

/** What a Construct request carries beside what the SDK's server passes to `construct`, read whole. */
export interface ConstructExtras {
  deleteBeforeReplace?: boolean;
  additionalSecretOutputs: string[];
  replaceOnChanges: string[];
  /** URNs. */
  replaceWith: string[];
  /** A URN: the SDK's server passes it on as a provider reference (`<urn>::<id>`), which cuts it. */
  deletedWith?: string;
  /** The SDK's server passes `toObject()`, whose `delete` is `pb_delete`: lost. Each duration as given, or unset. */
  customTimeouts?: { create?: string; update?: string; delete?: string };
  /** Not in ConstructRequest up to 3.276.0: the engine drops it (undefined then). */
  hideDiffs?: string[];
}

function timeouts(t: unknown): ConstructExtras["customTimeouts"] {
  if (typeof t !== "object" || t === null) return undefined;
  const get = (name: string) =>
    isFunction((t as Props)[name]) ? ((t as Props)[name] as () => string)() || undefined : undefined;
  const all = { create: get("getCreate"), update: get("getUpdate"), delete: get("getDelete") };
  const given = Object.fromEntries(Object.entries(all).filter(([, v]) => v !== undefined));
  return Object.keys(given).length > 0 ? given : undefined;
}

/** Reads a ConstructRequest's options, each only where this SDK's proto has its getter. */
function constructExtras(req: Props): ConstructExtras {
  const list = (getter: string) => (isFunction(req[getter]) ? (req[getter] as () => string[])() : undefined);
  const has = isFunction(req.hasDeletebeforereplace) ? (req.hasDeletebeforereplace as () => boolean)() : true;
  return {
    deleteBeforeReplace:
      has && isFunction(req.getDeletebeforereplace) ? (req.getDeletebeforereplace as () => boolean)() : undefined,
    additionalSecretOutputs: list("getAdditionalsecretoutputsList") ?? [],
    replaceOnChanges: list("getReplaceonchangesList") ?? [],
    replaceWith: list("getReplaceWithList") ?? [],
    deletedWith: (isFunction(req.getDeletedwith) && (req.getDeletedwith as () => string)()) || undefined,
    customTimeouts: timeouts(isFunction(req.getCustomtimeouts) ? req.getCustomtimeouts() : undefined),
    hideDiffs: list("getHideDiffsList") ?? list("getHidediffsList"),
  };
}

/** What the plugin does around the SDK's provider server, which answers these RPCs itself and hands the provider nothing. */
export interface ProviderHooks {
  /** CheckConfig (the SDK answers UNIMPLEMENTED): the checked inputs, or a throw (FAILED_PRECONDITION). */
  checkConfig(urn: string, news: Props): Props;
  /** Before the SDK's Configure, with the arguments as the engine sent them: a throw refuses them (FAILED_PRECONDITION). */
  configure(args: Props): void;
  /** Before the SDK's Create: the request's timeout (seconds, 0 when none). */
  create(urn: string, timeoutSeconds: number): void;
  /** Runs the SDK's Construct of resource `name`: `run` inside whatever scope the plugin keeps the request's options in. */
  construct(name: string, extras: ConstructExtras, run: () => void): void;
  /** After the SDK answered it. */
  constructed(name: string): void;
}

/**
 * Wraps the SDK's ResourceProvider handlers where the SDK registers them (grpc's Server.addService). True when
 * applied; false (a debug line) when the SDK moved, and the plugin runs with the SDK's handlers as they are.
 */
export function hookProviderServer(hooks: ProviderHooks): boolean {
  const what = "the plugin's CheckConfig, Configure, Create and Construct";
  const grpc = fromSdk<{ Server?: { prototype?: { addService?: unknown } }; status?: Props }>(what, "@grpc/grpc-js");
  const pb = fromSdk<{ CheckResponse?: unknown }>(what, "./proto/provider_pb");
  const structs = fromSdk<{ Struct?: { fromJavaScript?: unknown } }>(what, "google-protobuf/google/protobuf/struct_pb");
  const server = grpc?.Server?.prototype;
  const addService = server?.addService;
  const failed = grpc?.status?.FAILED_PRECONDITION;
  if (!server || !isFunction(addService) || typeof failed !== "number")
    return skip(what, "no grpc Server.addService") ?? false;
  if (!isFunction(pb?.CheckResponse) || !isFunction(structs?.Struct?.fromJavaScript))
    return skip(what, "no CheckResponse or Struct.fromJavaScript") ?? false;
  const CheckResponse = pb.CheckResponse as unknown as new () => { setInputs(s: unknown): void };
  const fromJs = structs.Struct.fromJavaScript as (v: Props) => unknown;
  type Request = Props & { getUrn?(): string; getNews?(): { toJavaScript(): Props }; getTimeout?(): number };
  type Args = { toJavaScript(): Props } | undefined;
  const fail = (callback: Callback, err: unknown) =>
    callback({ code: failed, details: err instanceof Error ? err.message : String(err) });
  server.addService = function (this: unknown, service: Record<string, { path?: string }>, impl: Props) {
    const handler = (name: string) => (isFunction(impl[name]) ? (impl[name] as Handler).bind(impl) : undefined);
    const [sdkConfigure, sdkCreate, sdkConstruct] = [handler("configure"), handler("create"), handler("construct")];
    if (service.checkConfig?.path !== "/pulumirpc.ResourceProvider/CheckConfig" || !sdkConfigure || !sdkCreate)
      skip(what, "not the ResourceProvider service this SDK was tested with");
    else {
      impl.checkConfig = (call: { request: Request }, callback: Callback) => {
        try {
          const resp = new CheckResponse();
          resp.setInputs(fromJs(hooks.checkConfig(call.request.getUrn!(), call.request.getNews!().toJavaScript())));
          callback(null, resp);
        } catch (err) {
          fail(callback, err);
        }
      };
      impl.configure = (call: { request: Request & { getArgs?(): Args } }, cb: Callback) => {
        try {
          hooks.configure(call.request.getArgs?.()?.toJavaScript() ?? {});
        } catch (err) {
          return fail(cb, err);
        }
        sdkConfigure(call, cb);
      };
      impl.create = (call: { request: Request }, callback: Callback) => {
        hooks.create(call.request.getUrn?.() ?? "", call.request.getTimeout?.() ?? 0);
        sdkCreate(call, callback);
      };
      if (sdkConstruct)
        impl.construct = (call: { request: Props & { getName?(): string } }, callback: Callback) => {
          const name = call.request.getName?.() ?? "";
          const answer: Callback = (err, resp) => (callback(err, resp), hooks.constructed(name));
          hooks.construct(name, constructExtras(call.request), () => sdkConstruct(call, answer));
        };
    }
    return (addService as (...a: unknown[]) => unknown).call(this, service, impl);
  };
  return true;
}

/**
 * Each Construct asks the engine the same 11 feature questions (the SDK's configureRuntime): asked once here, by
 * memoizing ResourceMonitorClient's supportsFeature. False (a debug line) when the SDK moved: asked each time.
 */
export function askFeaturesOnce(): boolean {
  type Ask = (this: unknown, req: { getId(): string }, cb: Callback) => void;
  const what = "asking the engine's features once";
  const m = fromSdk<{ ResourceMonitorClient?: { prototype?: { supportsFeature?: Ask } } }>(
    what,
    "./proto/resource_grpc_pb",
  );
  const client = m?.ResourceMonitorClient?.prototype;
  const ask = client?.supportsFeature;
  if (!client || !isFunction(ask)) return skip(what, "no ResourceMonitorClient.supportsFeature") ?? false;
  const answers = new Map<string, Promise<unknown[]>>();
  client.supportsFeature = function (req, callback) {
    const answer = answers.get(req.getId()) ?? new Promise<unknown[]>((done) => ask.call(this, req, (...a) => done(a)));
    answers.set(req.getId(), answer);
    void answer.then(([e, r]) => (e && answers.delete(req.getId()), callback(e, r)));
  };
  return true;
}

/**
 * The SDK takes a stack per RPC and per resource (which the engine stores), each with no message, taken in its own
 * files: in the plugin those are the plugin's own frames, so they are left empty, which keeps them out
 * of state and costs no formatting. Every other error keeps its stack: a crash is logged with its frames.
 */
export function quietSdkStacks(): boolean {
  const previous = Reflect.get(Error, "prepareStackTrace") as Prepare | undefined;
  if (previous !== undefined && !isFunction(previous))
    return skip("quiet SDK stacks", "prepareStackTrace is set") ?? false;
  const sdk = sdkDir();
  // Bundled into the plugin binary, the SDK's frames are in the one file this function is in.
  const probe: { stack?: unknown } = {};
  Reflect.set(Error, "prepareStackTrace", (_error: Error, frames: NodeJS.CallSite[]) => frames[0]?.getFileName());
  Error.captureStackTrace(probe);
  const own = probe.stack; // formatted when first read: by the formatter above
  Reflect.set(Error, "prepareStackTrace", previous);
  const ownFile = typeof own === "string" ? own : undefined;
  const inSdk = (file?: string | null) => !!file && (file.startsWith(sdk) || file === ownFile);
  const format: Prepare = (error, frames) => {
    if (!(error as { message?: string }).message && inSdk(frames[0]?.getFileName())) return error.name;
    if (previous) return previous(error, frames);
    return [`${error.name}${error.message ? `: ${error.message}` : ""}`, ...frames.map(String)].join("\n    at ");
  };
  Error.prepareStackTrace = format;
  return true;
}

/**
 * How a resource's registration ended, from its URN's Output (the SDK's own promise): `registered`; `failed`, when
 * the engine refused it after reporting the step's own error (the SDK's "resource registration failed": Node.js
 * SDKs do not ask for result reporting); `closing`, when the engine was shutting down (the SDK's "Resource monitor
 * is terminating"); or the error itself. `registered` too when the SDK moved (no `promise`): then the SDK's own
 * handling of the outputs decides, as before.
 */
export async function registration(urn: object): Promise<"registered" | "failed" | "closing" | { error: unknown }> {
  const promise = (urn as { promise?: () => Promise<unknown> }).promise;
  if (!isFunction(promise)) return skip("telling how a registration ended", "no Output.promise") ?? "registered";
  try {
    await promise.call(urn);
    return "registered";
  } catch (error) {
    const message = error instanceof Error ? error.message : "";
    if (/: (?:\d+ INTERNAL: )?resource registration failed$/.test(message)) return "failed";
    if (/: Resource monitor is terminating$/.test(message)) return "closing";
    return { error };
  }
}
