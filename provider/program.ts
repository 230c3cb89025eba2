/**
 * What the program side does besides declaring resources: the checks that run before the first one
 * registers (configuration, where the plugin will start), the per-run scope a service's many stacks
 * need, and the provider object Pulumi serializes into state.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import * as pulumi from "@pulumi/pulumi";
import { checkConfig } from "./config";
import { StorageUserError } from "./messages";
import { plainInFiles, readProjectFile, stackConfigFile } from "./project-file";

// A module path outside the SDK's typed surface, in every version of the peer range.
// eslint-disable-next-line @typescript-eslint/no-require-imports -- see above
const sdkState = () => require("@pulumi/pulumi/runtime/state") as { getStore(): { config?: Record<string, string> } };

/**
 * A value made once per program run: under the Automation API one process runs many stacks' programs,
 * each in a store of its own (the SDK's `localState.withLocalStorage`), so values are keyed by it.
 */
export function perRun<T>(make: () => T): () => T {
  const values = new WeakMap<object, T>();
  return () => {
    const store = sdkState().getStore();
    if (!values.has(store)) values.set(store, make());
    return values.get(store)!;
  };
}

/** The resource's URN, passed to the plugin as `__urn` so its warnings name the resource. */
export function urnOf(
  name: string,
  kind: "StorageUser" | "StorageUserLedger",
  parent?: pulumi.Resource,
): pulumi.Input<string> {
  const type = `pulumi-nodejs:dynamic/storage:${kind}`;
  // createUrn makes Outputs; a resource parented to the stack has its URN fixed by these parts.
  return parent
    ? pulumi.createUrn(name, type, parent)
    : `urn:pulumi:${pulumi.getStack()}::${pulumi.getProject()}::${type}::${name}`;
}

/** The project's directory, when the host passed one: an inline program gets a placeholder ("rootDirectory" or ""). */
const projectRoot = () => {
  const root = pulumi.runtime.getRootDirectory?.();
  return root && path.isAbsolute(root) ? root : undefined;
};

/**
 * Refuses config that must not be recorded, once per run and before anything registers: any key under
 * `storage:` that is no setting, and a token in plain text (a secret key missing from the engine's
 * list, or the token's text in the stack or project file), naming the key, never the value.
 */
export const assertConfig = perRun(() => {
  const runtime = pulumi.runtime as unknown as { allConfig(): Record<string, string> };
  // Per top-level key; the Automation API's inline programs keep it in the SDK's store, hosts in the environment.
  const raw = sdkState().getStore().config?.PULUMI_CONFIG_SECRET_KEYS || process.env.PULUMI_CONFIG_SECRET_KEYS;
  const secretKeys = raw ? (JSON.parse(raw) as string[]) : undefined;
  const root = projectRoot();
  const stackFile = root && stackConfigFile(root, pulumi.getStack());
  checkConfig(
    runtime.allConfig(),
    (key, value) =>
      (root ? plainInFiles(root, pulumi.getStack(), value) : undefined) ??
      (secretKeys && !secretKeys.includes(key.split(".")[0])
        ? { where: stackFile ? path.basename(stackFile) : "the stack's config file", inline: !root }
        : undefined),
    { project: pulumi.getProject() },
  );
});

/** Whether `file` is in a node_modules folder Node's resolution from `dir` searches (by hand: require.resolve would find this package by self-reference). */
function reachable(dir: string, file: string): boolean {
  const folders = (process.env.NODE_PATH ?? "").split(path.delimiter).filter(Boolean);
  for (let d = dir; ; d = path.dirname(d)) {
    if (path.basename(d) !== "node_modules") folders.push(path.join(d, "node_modules"));
    if (d === path.dirname(d)) break;
  }
  return folders.some((f) => fs.existsSync(path.join(f, file)));
}

/**
 * Refuses a run whose dynamic-provider plugin could not load: Pulumi starts it in the program's
 * directory (the CLI's getPwdMain), where it resolves @pulumi/pulumi and this package (pulumi/pulumi#5455).
 * An inline program's directory is not known here: nothing is refused then.
 */
export const assertPluginCanStart = perRun(() => {
  const root = projectRoot();
  if (!root) return;
  const main = readProjectFile(root)?.main;
  const full = main ? path.resolve(root, main) : root;
  const dir =
    fs.existsSync(full) && !fs.statSync(full).isDirectory() ? path.dirname(full) : fs.existsSync(full) ? full : root;
  const needed = {
    "@pulumi/pulumi": "@pulumi/pulumi/cmd/dynamic-provider/index.js",
    "pulumi-storage-user": "pulumi-storage-user/package.json",
  };
  const missing = Object.entries(needed)
    .filter(([, file]) => !reachable(dir, file))
    .map(([name]) => name);
  if (missing.length > 0) throw new StorageUserError("PLUGIN_CANNOT_START", { dir, missing });
});

const RESPONSE_DUMP = /^((?:RegisterResource|ReadResource|getResource Invoke) RPC finished: [\s\S]*?), resp: [\s\S]*$/;
const MARK = Symbol.for("pulumi-storage-user.debug-redaction");

/**
 * Works around @pulumi/pulumi runtime/resource.js (3.139 to 3.270 at least), whose debug lines
 * `RegisterResource RPC finished: … resp: …` print a resource's outputs, secrets in plain text: the
 * SDK looks `log.debug` up at each call, so wrapping it here cuts those dumps from `--debug` output.
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
