// For services on the Automation API: typed failures and warnings, config checks, pending creates (docs/automation-api.md).
import { spawn } from "node:child_process";
import * as path from "node:path";
import type { ConfigMap, EngineEvent, Stack, Workspace } from "@pulumi/pulumi/automation";
import { checkConfig, PlainAt } from "./config";
import { errorCodes, StorageUserError, StorageUserErrorCode, StorageUserWarningCode, warningCodes } from "./messages";
import { nameFromUrn, TYPES, typeFromUrn } from "./identity";
import { assertPluginCanStart, plainInFiles, readProjectFile, stackConfigFile } from "./project-file";

/** One failure or warning of a StorageUser (or its ledger, or the run's configuration). */
export interface StorageUserDiagnostic<Code extends string> {
  /** The stable code, the `[CODE]` the message starts with. */
  code: Code;
  /** The whole text, `[CODE] what happened: what to do`. */
  message: string;
  /** The resource it concerns; undefined for the stack, or when read from text. */
  urn?: string;
  /** The resource's Pulumi name, from its URN or from the message. */
  resourceName?: string;
  /** The user's requested login, when the run's events carried it. */
  userName?: string;
}
/** A failure of a run: a diagnostic of severity `error` with one of the error codes. */
export type StorageUserFailure = StorageUserDiagnostic<StorageUserErrorCode>;
/** A warning of a run: a diagnostic of severity `warning` with one of the warning codes. */
export type StorageUserWarning = StorageUserDiagnostic<StorageUserWarningCode>;
/** The parts of an engine event read here. */
export type EngineEventLike = Pick<
  EngineEvent,
  "diagnosticEvent" | "resourcePreEvent" | "resOutputsEvent" | "resOpFailedEvent"
>;
/** Config values as the Automation API takes and gives them. */
export type ConfigMapLike = ConfigMap;
/** The parts of an Automation API `Stack` read by {@link checkStackConfig}. */
export type StackLike = Pick<Stack, "name" | "getAllConfig"> & {
  /** Where the stack's settings file is, and the project's `main`. */
  workspace: Pick<Workspace, "workDir" | "projectSettings">;
};

// A TypeScript program's dynamic-provider plugin starts in the project's main directory.
async function pluginStarts({ workspace }: StackLike): Promise<void> {
  const { runtime, main } = await workspace.projectSettings();
  if ((typeof runtime === "string" ? runtime : runtime?.name) === "nodejs")
    assertPluginCanStart(path.resolve(workspace.workDir, main ?? "."));
}

const ourType = (type?: string) => (Object.values(TYPES) as (string | undefined)[]).includes(type?.split("$").pop());
const ours = (urn?: string) => urn !== undefined && ourType(typeFromUrn(urn));

function diagnostic<C extends string>(codes: readonly C[], text: string, urn?: string, userName?: string) {
  const message = text.trim();
  const code = /^\[([A-Z_]+)\] /.exec(message)?.[1] as C | undefined;
  if (!code || !codes.includes(code)) return undefined;
  if (ours(urn)) return { code, message, urn, resourceName: nameFromUrn(urn!), ...(userName ? { userName } : {}) };
  const resourceName = /^\[[A-Z_]+\] StorageUser(?:Ledger)? '([^']+)'/.exec(message)?.[1];
  return { code, message, ...(resourceName ? { resourceName } : {}) } as StorageUserDiagnostic<C>;
}

function unique<T extends StorageUserDiagnostic<string>>(list: (T | undefined)[]): T[] {
  const seen = new Set<string>();
  const key = (d: T) => `${d.urn ?? d.resourceName}\n${d.message}`;
  return list.filter((d): d is T => !!d && !seen.has(key(d)) && !!seen.add(key(d)));
}

/** The failures and warnings in a run's engine events, each once, in the order they came. */
export function storageUserDiagnostics(events: Iterable<EngineEventLike>): {
  /** Diagnostics of severity `error` with an error code. */
  failures: StorageUserFailure[];
  /** Diagnostics of severity `warning` with a warning code. */
  warnings: StorageUserWarning[];
} {
  const list = [...events];
  const userNames = new Map<string, string>();
  for (const e of list) {
    const step = e.resourcePreEvent?.metadata ?? e.resOutputsEvent?.metadata ?? e.resOpFailedEvent?.metadata;
    const name: unknown = step?.new?.inputs?.userName ?? step?.old?.inputs?.userName ?? step?.new?.outputs?.userName;
    if (step && typeof name === "string") userNames.set(step.urn, name);
  }
  const of = <C extends string>(severity: string, codes: readonly C[]) =>
    unique(
      list.map(({ diagnosticEvent: d }) =>
        d?.severity === severity ? diagnostic(codes, d.message, d.urn, d.urn && userNames.get(d.urn)) : undefined,
      ),
    );
  return { failures: of("error", errorCodes), warnings: of("warning", warningCodes) };
}

/** The provider's failures in a failed run: from its engine events when given, else from a CommandError's text. */
// eslint-disable-next-line @typescript-eslint/no-redundant-type-constituents -- the union documents what is expected; anything else reads as no events
export function storageUserFailures(source: Iterable<EngineEventLike> | unknown): StorageUserFailure[] {
  if (source !== null && typeof source === "object" && Symbol.iterator in source)
    return storageUserDiagnostics(source as Iterable<EngineEventLike>).failures;
  const text = source instanceof Error ? source.message : typeof source === "string" ? source : "";
  let header: string | undefined;
  return unique(
    text.split("\n").map((line) => {
      // The Diagnostics section ("  <type> (app):", then its lines), or a progress line (" +  <type> app creating error: …").
      const section = /^ {2}(\S+) \((.+)\):$/.exec(line);
      if (section) header = ourType(section[1]) ? section[2] : undefined;
      const at = line.indexOf("error: [");
      const progress = / (\S+:\S+) (\S+) /.exec(line.slice(0, at));
      const named = progress && ourType(progress[1]) ? progress[2] : header;
      const f = at < 0 ? undefined : diagnostic(errorCodes, line.slice(at + "error: ".length));
      return f && !f.resourceName && named ? { ...f, resourceName: named } : f;
    }),
  );
}

// A ConfigMap's token is plain unless its own key (path keys) or its top-level key is secret; storage:connections is
// secret as soon as one entry is, so a connection's token is also looked for in the file.
const plainIn =
  (config: ConfigMap, where: string, byPath?: boolean) =>
  (key: string): PlainAt =>
    config[byPath ? key : key.split(".")[0]]?.secret ? undefined : { where, inline: true };

/** Refuses, before `stack.setAllConfig(config, path)` writes it, a plain token (`[CONFIG_NOT_SECRET]`) or a misspelt key (`[CONFIG_INVALID]`). */
export function checkStorageConfig(config: ConfigMapLike, options: { path?: boolean } = {}): void {
  const values: Record<string, string> = {};
  const trees: Record<string, Record<string, unknown>> = {};
  for (const [key, { value }] of Object.entries(config)) {
    const [top, ...rest] = options.path ? key.split(".") : [key];
    if (rest.length === 0) values[key] = value;
    else
      rest.reduce<Record<string, unknown>>(
        (tree, k, i) => (tree[k] = i === rest.length - 1 ? value : (tree[k] ?? {})) as Record<string, unknown>,
        (trees[top] ??= {}),
      );
  }
  for (const [top, tree] of Object.entries(trees)) values[top] = JSON.stringify(tree);
  checkConfig(values, plainIn(config, "the config about to be set", options.path));
}

/** Checks `config` as {@link checkStorageConfig} and that the plugin can start (`[PLUGIN_CANNOT_START]`), then sets plain values with
 * `setAllConfig`, secret ones on `pulumi config set`'s standard input (the Automation API's arguments show in process lists). */
export async function setStorageConfig(stack: Stack, config: ConfigMapLike, options: { path?: boolean } = {}) {
  checkStorageConfig(config, options);
  await pluginStarts(stack);
  const entries = Object.entries(config);
  await stack.setAllConfig(Object.fromEntries(entries.filter(([, v]) => !v.secret)), options.path);
  const ws = stack.workspace;
  const env = { ...process.env, ...(ws.pulumiHome ? { PULUMI_HOME: ws.pulumiHome } : {}), ...ws.envVars };
  for (const [key, { value }] of entries.filter(([, v]) => v.secret)) {
    const args = ["config", "set", "--secret", "--stack", stack.name, ...(options.path ? ["--path"] : []), key];
    const child = spawn(ws.pulumiCommand?.command ?? "pulumi", args, { cwd: ws.workDir, env });
    let said = "";
    child.stderr.on("data", (d) => (said += d));
    child.stdin.end(value);
    const code = await new Promise((resolve, reject) => child.on("error", reject).on("close", resolve));
    if (code !== 0) throw new StorageUserError("CONFIG_WRITE_FAILED", { key, exit: String(code), said: said.trim() });
  }
}

/** Refuses a stack whose existing config holds a plain token or a misspelt key, or whose plugin cannot start, before any operation records it. */
export async function checkStackConfig(stack: StackLike): Promise<void> {
  await pluginStarts(stack);
  const config = await stack.getAllConfig();
  const dir = stack.workspace.workDir;
  const file = stackConfigFile(dir, stack.name);
  const where = file ? path.basename(file) : "the stack's config file";
  checkConfig(
    Object.fromEntries(Object.entries(config).map(([k, v]) => [k, v.value])),
    (key, value) =>
      plainIn(config, where)(key) ??
      (key.includes(".") && plainInFiles(dir, stack.name, value) ? { where, inline: true } : undefined),
    { project: readProjectFile(dir)?.name },
  );
}

export { pendingStorageUsers, formatPendingStorageUser } from "./core/pending";
export type { PendingStatus, PendingStorageUser, DeploymentLike } from "./core/pending";
