// A project's Pulumi.yaml and stack config file (only the top-level scalars needed, so no YAML parser), and its main directory.
import * as fs from "node:fs";
import * as path from "node:path";
import type { PlainAt } from "./config";
import { StorageUserError } from "./messages";

interface ProjectFile {
  file: string;
  name?: string;
  main?: string;
  stackConfigDir?: string;
}

const read = (file: string) => {
  try {
    return fs.readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
};

export function readProjectFile(dir: string): ProjectFile | undefined {
  for (const file of ["Pulumi.yaml", "Pulumi.yml"].map((n) => path.join(dir, n))) {
    const text = read(file);
    if (text === undefined) continue;
    // A top-level `key: value`: plain, single- or double-quoted, a trailing comment dropped.
    const top = (key: string) =>
      new RegExp(`^${key}:[ \\t]*(?:"([^"\\n]*)"|'([^'\\n]*)'|([^#\\n]*?))[ \\t]*(?:#.*)?$`, "m")
        .exec(text)
        ?.slice(1)
        .find((v) => v !== undefined) || undefined;
    return { file, name: top("name"), main: top("main"), stackConfigDir: top("stackConfigDir") };
  }
  return undefined;
}

/** The existing `Pulumi.<stack>.yaml` (or `.yml`) of the project in `dir`, honouring `stackConfigDir`. */
export function stackConfigFile(dir: string, stack: string, project = readProjectFile(dir)): string | undefined {
  const configDir = project?.stackConfigDir ? path.resolve(dir, project.stackConfigDir) : dir;
  const short = stack.split("/").pop();
  return ["yaml", "yml"].map((ext) => path.join(configDir, `Pulumi.${short}.${ext}`)).find((f) => fs.existsSync(f));
}

/** The keys under `namespace:` that the stack's config file sets (as YAML keys, whatever their value). */
export function keysInStackFile(dir: string, stack: string, namespace: string): string[] {
  const text = read(stackConfigFile(dir, stack) ?? "") ?? "";
  return [...text.matchAll(new RegExp(`^\\s+["']?(${namespace}:[\\w.]+)["']?\\s*:`, "gm"))].map((m) => m[1]);
}

/** Where a token's text stands in plain: the stack's config file, or the project's `config:` block (which has no secret form). */
export function plainInFiles(dir: string, stack: string, value: string): PlainAt {
  const project = readProjectFile(dir);
  const stackFile = stackConfigFile(dir, stack, project);
  const has = (file?: string) => file !== undefined && value.length >= 8 && !!read(file)?.includes(value);
  if (has(stackFile)) return { where: path.basename(stackFile!) };
  if (has(project?.file)) return { where: path.basename(project!.file), project: true };
  return undefined;
}

/** Refuses (`[PLUGIN_CANNOT_START]`) a project main directory the dynamic-provider plugin cannot start in: it loads both from there. */
export function assertPluginCanStart(dir: string): void {
  for (const module of ["@pulumi/pulumi/cmd/dynamic-provider", "pulumi-storage-user/dist/provider/runtime"])
    try {
      require.resolve(module, { paths: [dir] });
    } catch {
      throw new StorageUserError("PLUGIN_CANNOT_START", { module, dir });
    }
}
