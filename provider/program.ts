// The program side besides the resources: the checks before the first one registers (configuration,
// where the plugin starts), the per-run scope a service's many stacks need, and the debug-output guard.
import * as fs from "node:fs";
import * as path from "node:path";
import * as pulumi from "@pulumi/pulumi";
import { checkConfig } from "./config";
import { StorageUserError } from "./messages";
import { plainInFiles, readProjectFile, stackConfigFile } from "./project-file";

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
export function urnOf(name: string, kind: "StorageUser" | "StorageUserLedger", parent?: pulumi.Resource) {
  const type = `pulumi-nodejs:dynamic/storage:${kind}`;
  return parent
    ? pulumi.createUrn(name, type, parent)
    : `urn:pulumi:${pulumi.getStack()}::${pulumi.getProject()}::${type}::${name}`;
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
    (key, value) =>
      (root ? plainInFiles(root, pulumi.getStack(), value) : undefined) ??
      (secretKeys && !secretKeys.includes(key.split(".")[0])
        ? { where: stackFile ? path.basename(stackFile) : "the stack's config file", inline: !root }
        : undefined),
    { project: pulumi.getProject() },
  );
});

// Whether `file` is in a node_modules folder Node searches from `dir` (require.resolve would find this package by self-reference).
function reachable(dir: string, file: string): boolean {
  const folders = (process.env.NODE_PATH ?? "").split(path.delimiter).filter(Boolean);
  for (let d = dir; ; d = path.dirname(d)) {
    if (path.basename(d) !== "node_modules") folders.push(path.join(d, "node_modules"));
    if (d === path.dirname(d)) break;
  }
  return folders.some((f) => fs.existsSync(path.join(f, file)));
}

// Pulumi starts the dynamic-provider plugin in the program's directory (getPwdMain), resolving @pulumi/pulumi
// and this package there (pulumi/pulumi#5455). An inline program's is not known here: nothing is refused.
export const assertPluginCanStart = perRun(() => {
  const root = projectRoot();
  if (!root) return;
  const main = readProjectFile(root)?.main;
  const full = main ? path.resolve(root, main) : root;
  const dir = !fs.existsSync(full) ? root : fs.statSync(full).isDirectory() ? full : path.dirname(full);
  const needed = { "@pulumi/pulumi": "/cmd/dynamic-provider/index.js", "pulumi-storage-user": "/package.json" };
  const missing = Object.entries(needed)
    .filter(([name, file]) => !reachable(dir, name + file))
    .map(([name]) => name);
  if (missing.length > 0) throw new StorageUserError("PLUGIN_CANNOT_START", { dir, missing });
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
