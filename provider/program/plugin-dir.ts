/**
 * Refuses, before anything registers, a run whose dynamic-provider plugin could not load: Pulumi
 * starts it in the program's directory, where it resolves @pulumi/pulumi and this package
 * (pulumi/pulumi#5578, #5455). That directory follows the CLI's getPwdMain (pkg/engine/projinfo.go);
 * an inline program's is read from its `pulumi` child process in /proc. Unsure: nothing is refused.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import * as pulumi from "@pulumi/pulumi";
import { StorageUserError } from "../errors";
import { perRun } from "./run-scope";
import { readProjectFile } from "../project-file";

/** What the plugin loads from its working directory, as paths inside a node_modules folder. */
const needed = {
  "@pulumi/pulumi": "@pulumi/pulumi/cmd/dynamic-provider/index.js",
  "pulumi-storage-user": "pulumi-storage-user/package.json",
};

/**
 * Whether `file` is in a node_modules folder that Node's resolution from `dir` searches (the
 * folders up the tree, then NODE_PATH). Looked up by hand: `require.resolve(…, { paths })`
 * from inside this package would find the package itself by self-reference, wherever `dir` is.
 */
function reachable(dir: string, file: string): boolean {
  const folders: string[] = [];
  for (let d = dir; ; d = path.dirname(d)) {
    if (path.basename(d) !== "node_modules") folders.push(path.join(d, "node_modules"));
    if (d === path.dirname(d)) break;
  }
  folders.push(...(process.env.NODE_PATH ?? "").split(path.delimiter).filter(Boolean));
  return folders.some((f) => fs.existsSync(path.join(f, file)));
}

/** The plugin's working directory for a project file in `root`: getPwdMain's rule. */
export function pluginDirOf(root: string): string {
  const main = readProjectFile(root)?.main;
  if (!main) return root;
  const full = path.resolve(root, main);
  try {
    return fs.statSync(full).isDirectory() ? full : path.dirname(full);
  } catch {
    return root;
  }
}

function childrenOf(pid: number): number[] {
  try {
    return fs
      .readdirSync(`/proc/${pid}/task`)
      .flatMap((tid) => fs.readFileSync(`/proc/${pid}/task/${tid}/children`, "utf8").trim().split(/\s+/))
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
}

/**
 * The working directory of the `pulumi` process running this inline program: a descendant of
 * this process started with `--exec-kind auto.inline` and `--stack` naming this stack, whose
 * project file names this project. Undefined unless exactly one matches.
 */
function inlineCliRoot(): string | undefined {
  const [stack, project] = [pulumi.getStack(), pulumi.getProject()];
  const found = new Set<string>();
  const queue = childrenOf(process.pid);
  for (let i = 0; i < queue.length && i < 256; i++) {
    const pid = queue[i];
    queue.push(...childrenOf(pid));
    let argv: string[];
    let cwd: string;
    try {
      argv = fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
      cwd = fs.readlinkSync(`/proc/${pid}/cwd`);
    } catch {
      continue;
    }
    const flag = (name: string) =>
      argv[argv.indexOf(name) + 1] ?? argv.find((a) => a.startsWith(`${name}=`))?.slice(name.length + 1);
    if (flag("--exec-kind") !== "auto.inline" || flag("--stack")?.split("/").pop() !== stack) continue;
    if (readProjectFile(cwd)?.name === project) found.add(cwd);
  }
  return found.size === 1 ? [...found][0] : undefined;
}

/**
 * The directory of this run's project file (and stack config files), and whether the program
 * is inline; undefined when not known for certain. Per run.
 */
export const projectRoot = perRun((): { root: string; inline: boolean } | undefined => {
  const root = pulumi.runtime.getRootDirectory?.();
  // A host passes an absolute directory. An inline program gets the placeholder text
  // "rootDirectory" (@pulumi/pulumi runtime/state.ts LocalStore, when PULUMI_NODEJS_ROOT_DIRECTORY
  // is unset, as in a service's process) or "" from older SDKs.
  if (root && path.isAbsolute(root)) return { root, inline: false };
  const cliRoot = inlineCliRoot();
  return cliRoot ? { root: cliRoot, inline: true } : undefined;
});

/** Throws `[PLUGIN_CANNOT_START]` when the plugin could not load what it needs. Once per run. */
export const assertPluginCanStart = perRun(() => {
  const project = projectRoot();
  if (!project) return;
  const start = { dir: pluginDirOf(project.root), inline: project.inline };
  const missing = Object.entries(needed)
    .filter(([, file]) => !reachable(start.dir, file))
    .map(([name]) => name);
  if (missing.length > 0)
    throw new StorageUserError("PLUGIN_CANNOT_START", { dir: start.dir, missing, inline: start.inline });
});
