/**
 * A project's `Pulumi.yaml` and its stack config file, read one way. Only the top-level scalar
 * keys the package needs are read (`name`, `main`, `stackConfigDir`), so no YAML parser is needed.
 */
import * as fs from "node:fs";
import * as path from "node:path";

export interface ProjectFile {
  file: string;
  name?: string;
  main?: string;
  stackConfigDir?: string;
}

/** A top-level `key: value`: plain, single- or double-quoted, a trailing comment dropped. */
function topLevel(text: string, key: string): string | undefined {
  const m = new RegExp(`^${key}:[ \\t]*(?:"([^"\\n]*)"|'([^'\\n]*)'|([^#\\n]*?))[ \\t]*(?:#.*)?$`, "m").exec(text);
  const value = m ? (m[1] ?? m[2] ?? m[3]) : undefined;
  return value === "" ? undefined : value;
}

/** The project file in `dir` (`Pulumi.yaml`, else `Pulumi.yml`), or undefined. */
export function readProjectFile(dir: string): ProjectFile | undefined {
  for (const name of ["Pulumi.yaml", "Pulumi.yml"]) {
    const file = path.join(dir, name);
    let text: string;
    try {
      text = fs.readFileSync(file, "utf8");
    } catch {
      continue;
    }
    return {
      file,
      name: topLevel(text, "name"),
      main: topLevel(text, "main"),
      stackConfigDir: topLevel(text, "stackConfigDir"),
    };
  }
  return undefined;
}

/** The existing `Pulumi.<stack>.yaml` (or `.yml`) of the project in `dir`, honouring `stackConfigDir`. */
export function stackConfigFile(dir: string, stack: string, project = readProjectFile(dir)): string | undefined {
  const configDir = project?.stackConfigDir ? path.resolve(dir, project.stackConfigDir) : dir;
  const short = stack.split("/").pop();
  return ["yaml", "yml"].map((ext) => path.join(configDir, `Pulumi.${short}.${ext}`)).find((f) => fs.existsSync(f));
}
