/**
 * What the language host reads from a program's packages: the Pulumi plugins its node_modules
 * declare and which package manager the program uses. Each follows
 * pulumi/pulumi v3.250.0 (`sdk/nodejs/cmd/pulumi-language-nodejs/main.go`, `sdk/nodejs/npm/`).
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";

export interface PluginPackage {
  name: string;
  version: string;
  server: string;
  parameterization?: { name: string; version: string; value: string };
}

interface PackageJson {
  name?: string;
  version?: string;
  pulumi?: {
    resource?: boolean;
    name?: string;
    version?: string;
    server?: string;
    parameterization?: PluginPackage["parameterization"];
  };
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
}

/**
 * `getPackagesFromDir`: every package.json under a node_modules/ of the program directory whose
 * `pulumi.resource` is true, walked deeply (symlinks followed once, nested policy packs skipped),
 * plus the paths and versions of every @pulumi/pulumi found, for the mixed-versions warning.
 */
export function requiredPackages(programDir: string): {
  packages: PluginPackage[];
  sdkVersions: Map<string, string>;
  errors: string[];
} {
  const packages: PluginPackage[] = [];
  const sdkVersions = new Map<string, string>();
  const errors: string[] = [];
  const visited = new Set<string>();
  const walk = (dir: string, inNodeModules: boolean) => {
    if (visited.has(dir)) return;
    visited.add(dir);
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch (err) {
      errors.push(`reading plugin dir ${dir}: ${(err as Error).message}`);
      return;
    }
    for (const entry of entries) {
      let full = path.join(dir, entry.name);
      let isDir = entry.isDirectory();
      if (entry.isSymbolicLink()) {
        try {
          full = fs.realpathSync(full);
          isDir = fs.statSync(full).isDirectory();
        } catch (err) {
          errors.push(`resolving link in plugin dir ${full}: ${(err as Error).message}`);
          continue;
        }
      }
      if (isDir) {
        if (["PulumiPolicy.yaml", "PulumiPolicy.yml"].some((f) => fs.existsSync(path.join(full, f)))) continue;
        walk(full, inNodeModules || path.basename(dir) === "node_modules");
      } else if (inNodeModules && entry.name === "package.json") {
        let info: PackageJson;
        try {
          info = JSON.parse(fs.readFileSync(full, "utf8"));
        } catch (err) {
          errors.push(`unmarshaling package.json ${full}: ${(err as Error).message}`);
          continue;
        }
        if (info.name === "@pulumi/pulumi" && info.version) sdkVersions.set(full, info.version);
        if (!info.pulumi?.resource) continue;
        const name = info.pulumi.name || (info.name?.startsWith("@pulumi/") ? info.name.slice("@pulumi/".length) : "");
        if (!name) {
          errors.push(
            `Missing property "name" for the third-party plugin '${info.name}' inside package.json under the "pulumi" section.`,
          );
          continue;
        }
        const version = info.pulumi.version || info.version || "";
        packages.push({
          name,
          version: version.startsWith("v") ? version : `v${version}`,
          server: info.pulumi.server ?? "",
          parameterization: info.pulumi.parameterization,
        });
      }
    }
  };
  walk(path.resolve(programDir), false);
  return { packages, sdkVersions, errors };
}

/** `compatibleVersions` for 3.x SDKs: copies of @pulumi/pulumi must share a major version. */
export function mixedSdkWarning(sdkVersions: Map<string, string>): string | undefined {
  const [first, ...rest] = [...sdkVersions];
  const major = (v: string) => v.split(".")[0];
  const other = first && rest.find(([, v]) => major(v) !== major(first[1]));
  if (!first || !other) return undefined;
  return `Found incompatible versions of @pulumi/pulumi. Differing major versions are not supported.\n  Version ${first[1]} referenced at ${first[0]}\n  Version ${other[1]} referenced at ${other[0]}\n`;
}

export type PackageManager = "npm" | "yarn" | "pnpm" | "bun";

/** fsutil.Searchup: the nearest directory at or above `dir` holding `file`. */
export function searchUp(dir: string, file: string): string | undefined {
  for (let d = path.resolve(dir); ; d = path.dirname(d)) {
    if (fs.existsSync(path.join(d, file))) return d;
    if (d === path.dirname(d)) return undefined;
  }
}

/**
 * `npm.ResolvePackageManager`: the `packagemanager` option, else yarn.lock, pnpm-lock.yaml,
 * bun.lock(b), each only if that manager is on PATH, else npm.
 */
export function resolvePackageManager(option: unknown, programDir: string): PackageManager {
  if (option === "npm" || option === "yarn" || option === "pnpm" || option === "bun") return option;
  if (option !== undefined && option !== "auto")
    throw new Error(`packagemanager option must be one of auto, npm, yarn, pnpm or bun, got ${JSON.stringify(option)}`);
  const preferYarn = ["1", "true"].includes((process.env.PULUMI_PREFER_YARN ?? "").toLowerCase());
  if ((preferYarn || searchUp(programDir, "yarn.lock")) && lookPath("yarn")) return "yarn";
  if (searchUp(programDir, "pnpm-lock.yaml") && lookPath("pnpm")) return "pnpm";
  if ((searchUp(programDir, "bun.lockb") || searchUp(programDir, "bun.lock")) && lookPath("bun")) return "bun";
  return "npm";
}

/** The install command of each manager, as the Go host runs it (never `--production`). */
export function installArgs(pm: PackageManager): string[] {
  return {
    npm: ["install", "--loglevel=error"],
    yarn: ["install"],
    pnpm: ["install", "--use-stderr"],
    bun: ["install"],
  }[pm];
}

export function toolVersion(executable: string): string {
  try {
    return execFileSync(executable, ["--version"], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
      timeout: 30_000,
    })
      .trim()
      .replace(/^v/, "");
  } catch {
    return "";
  }
}

/** exec.LookPath: the first executable of that name on PATH. */
export function lookPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? "").split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, name);
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      if (fs.statSync(candidate).isFile()) return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}
