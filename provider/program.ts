// The program side besides the resources: the config check before the first one registers, the per-run
// scope a service's many stacks need, and the debug-output guard.
import * as path from "node:path";
import * as pulumi from "@pulumi/pulumi";
import { checkConfig } from "./config";
import { TYPES } from "./identity";
import { plainInFiles, stackConfigFile } from "./project-file";

// eslint-disable-next-line @typescript-eslint/no-require-imports -- outside the SDK's typed surface, in every version of the peer range
const sdkState = () => require("@pulumi/pulumi/runtime/state") as { getStore(): { config?: Record<string, string> } };

/** A value made once per run: one service process runs many stacks' programs, each in a store of its own (the SDK's localState). */
export function perRun<T>(make: () => T): () => T {
  const values = new WeakMap<object, T>();
  return () => {
    const store = sdkState().getStore();
    if (!values.has(store)) values.set(store, make());
    return values.get(store)!;
  };
}

/** The resource's URN, the plugin's `__urn` input, so its warnings name the resource; createUrn makes Outputs, needed only under a parent. */
export function urnOf(name: string, kind: "user" | "ledger", parent?: pulumi.Resource) {
  const type = TYPES[kind];
  return parent
    ? pulumi.createUrn(name, type, parent)
    : `urn:pulumi:${pulumi.getStack()}::${pulumi.getProject()}::${type}::${name}`;
}

const [sdkDir, ownDir] = [path.dirname(require.resolve("@pulumi/pulumi")), __dirname].map((dir) => dir + path.sep);
type Prepare = ((error: Error, frames: NodeJS.CallSite[]) => string) & { trims?: true };
/**
 * The SDK takes a resource's source position below its class (for ours, our constructor) and keeps in state every
 * frame under it, the run's own too. Until the program yields, a stack through this package has only the program's
 * frames under its first frame here, that one left out, and the SDK's above it unmapped: the SDK drops them.
 */
export function programStacks(): void {
  const prepare = Reflect.get(Error, "prepareStackTrace") as Prepare;
  if (typeof prepare !== "function" || prepare.trims) return; // no formatter to map frames with: stacks left whole
  const inProgram = (name: string) => (path.isAbsolute(name) || name.startsWith("file:")) && !name.startsWith(sdkDir);
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

// The project's directory, when the host passed one: an inline program gets a placeholder ("rootDirectory" or "").
const projectRoot = () => [pulumi.runtime.getRootDirectory?.()].find((root) => root && path.isAbsolute(root));

/** The one config check, once per run: a token is plain when the engine's secret keys lack it or its text stands in a file. */
export const assertConfig = perRun(() => {
  const runtime = pulumi.runtime as unknown as { allConfig(): Record<string, string> };
  const raw = sdkState().getStore().config?.PULUMI_CONFIG_SECRET_KEYS || process.env.PULUMI_CONFIG_SECRET_KEYS;
  const secretKeys = raw ? (JSON.parse(raw) as string[]) : undefined;
  const root = projectRoot();
  const stackFile = root && stackConfigFile(root, pulumi.getStack());
  checkConfig(
    runtime.allConfig(),
    (key, value) => {
      // The engine lists top-level keys: exact for a token of its own, not for storage:connections' entries.
      const listed = secretKeys?.includes(key.split(".")[0]);
      if (listed && !key.includes(".")) return undefined;
      return (
        (root ? plainInFiles(root, pulumi.getStack(), value) : undefined) ??
        (secretKeys && !listed
          ? { where: stackFile ? path.basename(stackFile) : "the stack's config file", inline: !root }
          : undefined)
      );
    },
    { project: pulumi.getProject() },
  );
});

const RESPONSE_DUMP = /^((?:RegisterResource|ReadResource|getResource Invoke) RPC finished: [\s\S]*?), resp: [\s\S]*$/;
const MARK = Symbol.for("pulumi-storage-user.debug-redaction");

/**
 * Works around @pulumi/pulumi runtime/resource.js (3.139 to 3.270 at least), whose debug lines print outputs,
 * secrets in plain text: the SDK looks `log.debug` up at each call, so this wrapper cuts those dumps.
 */
export function redactResponseDumps(log: typeof pulumi.log): void {
  const target = log as unknown as { debug: ((msg: string, ...rest: unknown[]) => Promise<void>) & { [MARK]?: true } };
  if (target.debug[MARK]) return;
  const original = target.debug;
  target.debug = Object.assign(
    (msg: string, ...rest: unknown[]) =>
      original(
        typeof msg === "string" ? msg.replace(RESPONSE_DUMP, "$1, resp: [omitted: holds secret values]") : msg,
        ...rest,
      ),
    { [MARK]: true as const },
  );
}
