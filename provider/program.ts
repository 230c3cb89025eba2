// The program side besides the resources: the config check before the first one registers, and the per-run
// scope a service's many stacks need.
import * as path from "node:path";
import * as pulumi from "@pulumi/pulumi";
import { checkConfig } from "./config";
import { TYPES } from "./identity";
import { assertPluginCanStart, plainInFiles, stackConfigFile } from "./project-file";
import { inlineRunDir, keepInlineRunDirs, programStacks as trimStacks, runStore } from "./core/sdk-seam";

keepInlineRunDirs();

/** A value made once per run: one service process runs many stacks' programs, each in a store of its own (the SDK's localState). */
export function perRun<T>(make: () => T): () => T {
  const values = new WeakMap<object, T>();
  const whole = {}; // an SDK without its per-run store: one value for the process
  return () => {
    const store = runStore() ?? whole;
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

/** A stack through this package keeps the program's frames alone (the seam's programStacks). */
export const programStacks = () => trimStacks(__dirname + path.sep);

// The project's directory, when the host passed one: an inline program gets a placeholder ("rootDirectory" or "").
const projectRoot = () => [pulumi.runtime.getRootDirectory?.()].find((root) => root && path.isAbsolute(root));

/** The one config check, once per run: a token is plain when the engine's secret keys lack it or its text stands in a file.
 * An inline program first checks that its plugin can start where the engine starts it (docs/automation-api.md). */
export const assertConfig = perRun(() => {
  const runDir = inlineRunDir();
  if (runDir) assertPluginCanStart(runDir);
  const runtime = pulumi.runtime as unknown as { allConfig(): Record<string, string> };
  const raw = runStore()?.config?.PULUMI_CONFIG_SECRET_KEYS || process.env.PULUMI_CONFIG_SECRET_KEYS;
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
