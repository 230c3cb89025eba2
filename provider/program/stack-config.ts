/**
 * Program-side checks of the stack configuration, before anything registers: only the program
 * can tell a secret value from a plain one (cmd/dynamic-provider `configure` unwraps the marks).
 * Sources: the engine's secret keys (`PULUMI_CONFIG_SECRET_KEYS`, per top-level key), and for the
 * tokens inside `storage:connections` the stack's config file, where a secret value is encrypted.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import * as pulumi from "@pulumi/pulumi";
import { StorageUserError } from "../errors";
import { assertStorageConfig, configKeys, connectionsKey, parseConnections, settingKeys } from "../connections";
import { projectRoot } from "./plugin-dir";
import { readProjectFile, stackConfigFile } from "../project-file";
import { perRun } from "./run-scope";

interface RuntimeConfig {
  getConfig(key: string): string | undefined;
  allConfig(): Record<string, string>;
  isConfigSecret?(key: string): boolean;
}

/** The engine's list of secret keys, or undefined when the language host did not pass one. */
function secretKeys(): string[] | undefined {
  let raw: string | undefined;
  try {
    // Where @pulumi/pulumi keeps it (the Automation API's inline programs set it there, not in process.env).
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- a module path outside the SDK's typed surface
    const state = require("@pulumi/pulumi/runtime/state") as {
      getStore?(): { config?: Record<string, string | undefined> };
    };
    raw = state.getStore?.().config?.PULUMI_CONFIG_SECRET_KEYS;
  } catch {
    raw = undefined;
  }
  raw = raw || process.env.PULUMI_CONFIG_SECRET_KEYS;
  if (!raw) return undefined;
  try {
    const list: unknown = JSON.parse(raw);
    return Array.isArray(list) ? list.map(String) : undefined;
  } catch {
    return undefined;
  }
}

/** This program's project file and `Pulumi.<stack>.yaml`, where they can be found. */
function configFiles(): { project?: string; stack?: string } {
  const root = projectRoot()?.root;
  if (!root) return {};
  const project = readProjectFile(root);
  return { project: project?.file, stack: stackConfigFile(root, pulumi.getStack(), project) };
}

function readText(file: string | undefined): string | undefined {
  try {
    return file ? fs.readFileSync(file, "utf8") : undefined;
  } catch {
    return undefined;
  }
}

/** The tokens in stack config, by key; values are only compared, never printed. */
function configuredTokens(
  config: RuntimeConfig,
): Array<ReturnType<typeof settingKeys> & { topLevel: string; value: string }> {
  const tokens: Array<ReturnType<typeof settingKeys> & { topLevel: string; value: string }> = [];
  const plain = config.getConfig(configKeys.accessToken.key);
  if (plain) tokens.push({ ...settingKeys("accessToken"), topLevel: configKeys.accessToken.key, value: plain });
  // Well-formed here: assertStorageConfig ran first.
  for (const [name, entry] of Object.entries(parseConnections(config.getConfig(connectionsKey)) ?? {})) {
    if (entry.accessToken) {
      tokens.push({ ...settingKeys("accessToken", name), topLevel: connectionsKey, value: entry.accessToken });
    }
  }
  return tokens;
}

/** Whether this run's tokens passed the check (per run: see run-scope.ts). */
const passed = perRun(() => ({ value: false }));

/**
 * Throws `[CONFIG_INVALID]` naming a key under `storage:` that is no setting (a typo such as
 * `storage:accessTokn` or `storage:connections.eu.accesToken`, used or not), and
 * `[CONFIG_NOT_SECRET]` naming the first token found in plain stack config; both before the
 * first resource registers, so neither value reaches the state as an input of the default provider. Checked once
 * per program run (config does not change while it runs), and in every run: under the
 * Automation API each stack's run has its own config, so a process that ran a stack with a
 * secret token checks the next stack's token again.
 */
export function assertTokensSecret(): void {
  const done = passed();
  if (done.value) return;
  const config = pulumi.runtime as unknown as RuntimeConfig;
  assertStorageConfig(config.allConfig(), pulumi.getProject());
  const tokens = configuredTokens(config);
  const secret = tokens.length === 0 ? undefined : secretKeys();
  const files = tokens.length === 0 ? {} : configFiles();
  const [stackText, projectText] = [readText(files.stack), readText(files.project)];
  for (const t of tokens) {
    const notSecret = secret !== undefined && !secret.includes(t.topLevel);
    // Short values could appear in a file by coincidence; real tokens are longer.
    const inFile = (text: string | undefined) => text !== undefined && t.value.length >= 8 && text.includes(t.value);
    // Project-level config (the project file's `config:` block) is plain text by nature.
    const inProject = !inFile(stackText) && inFile(projectText);
    if (notSecret || inFile(stackText) || inProject) {
      const where = inProject
        ? path.basename(files.project!)
        : files.stack
          ? path.basename(files.stack)
          : "the stack's config file";
      throw new StorageUserError("CONFIG_NOT_SECRET", {
        key: t.key,
        where,
        path: t.path,
        env: t.env,
        project: inProject,
        inline: projectRoot()?.inline,
      });
    }
  }
  done.value = true;
}
