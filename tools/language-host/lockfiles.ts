/**
 * `GetProgramDependencies` as the Go host answers it: the package manager's lock file, found by
 * searching up from the program, parsed line by line, then (unless transitive) only the names the
 * package.json next to the lock file declares. A port of pulumi/pulumi v3.250.0
 * `sdk/nodejs/npm/manager.go` `listPackagesFromLockFile` and the parsers it uses
 * (github.com/git-pkgs/manifests v0.4.1 `internal/npm`: npm.go, pnpm.go, yarn.go), quirks kept:
 * lock-file order, duplicates when transitive, pnpm `file:` keys split at the first slash.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { type PackageManager, searchUp } from "./packages";

export interface Dependency {
  name: string;
  version: string;
}

const lockFileOf = { npm: "package-lock.json", pnpm: "pnpm-lock.yaml", yarn: "yarn.lock" } as const;

/** `ListPackages` of the resolved package manager. */
export function listPackages(pm: PackageManager, programDir: string, transitive: boolean): Dependency[] {
  // The Go host parses bun.lock too; no test or program here uses bun (see main.ts).
  if (pm === "bun") throw new Error("this stand-in host does not read bun.lock");
  const lockName = lockFileOf[pm];
  const lockDir = searchUp(programDir, lockName);
  if (!lockDir) throw new Error(`no ${lockName} found (searching upwards from ${programDir})`);
  const content = fs.readFileSync(path.join(lockDir, lockName), "utf8").split("\r\n").join("\n");
  const deps = { npm: parsePackageLock, pnpm: parsePnpmLock, yarn: parseYarnLock }[pm](content);
  return transitive ? deps : filterDirect(lockDir, deps);
}

/** `filterDirectDependencies`: names in the manifest's dependencies or devDependencies, first occurrence each. */
function filterDirect(dir: string, deps: Dependency[]): Dependency[] {
  const manifest = path.join(dir, "package.json");
  if (!fs.existsSync(manifest)) throw new Error(`could not find package.json or package.yaml in ${dir}`);
  let pkg: { dependencies?: Record<string, string>; devDependencies?: Record<string, string> };
  try {
    pkg = JSON.parse(fs.readFileSync(manifest, "utf8"));
  } catch (err) {
    throw new Error(`could not parse ${manifest}: ${(err as Error).message}`, { cause: err });
  }
  const direct = new Set([...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.devDependencies ?? {})]);
  const out: Dependency[] = [];
  for (const d of deps) {
    if (!direct.has(d.name)) continue;
    out.push(d);
    direct.delete(d.name);
  }
  return out;
}

/** npm.go `npmPackageLockParser`: v2 with packages and v3 by lines, v1 by its nested JSON. */
export function parsePackageLock(content: string): Dependency[] {
  const header = content.slice(0, 200);
  if (
    header.includes(`"lockfileVersion": 3`) ||
    (header.includes(`"lockfileVersion": 2`) && content.slice(0, 600).includes(`"packages"`))
  ) {
    return parsePackageLockLines(content);
  }
  const v1 = (deps: Record<string, { version?: string; dependencies?: Record<string, unknown> }> = {}): Dependency[] =>
    Object.entries(deps).flatMap(([name, d]) => [{ name, version: d.version ?? "" }, ...v1(d.dependencies as never)]);
  return v1(JSON.parse(content).dependencies);
}

function jsonStringValue(line: string): string {
  const rest = line.slice(line.indexOf(":") + 1);
  const start = rest.indexOf('"');
  if (line.indexOf(":") < 0 || start < 0) return "";
  const end = rest.indexOf('"', start + 1);
  return end < 0 ? "" : rest.slice(start + 1, end);
}

function packageNameOfPath(p: string): string {
  p = p.replace(/^node_modules\//, "");
  const nested = p.lastIndexOf("node_modules/");
  if (nested >= 0) p = p.slice(nested + "node_modules/".length);
  if (p.startsWith("@")) {
    const parts = p.split("/");
    if (parts.length >= 2) return `${parts[0]}/${parts[1]}`;
  }
  const slash = p.indexOf("/");
  return slash >= 0 ? p.slice(0, slash) : p;
}

function parsePackageLockLines(content: string): Dependency[] {
  const deps: Dependency[] = [];
  let inPackages = false;
  let current = "";
  let version = "";
  let link = false;
  const save = () => {
    if (current && (version || link)) {
      const name = packageNameOfPath(current);
      if (name) deps.push({ name, version });
    }
  };
  for (const line of content.split("\n")) {
    const trimmed = line.trim();
    if (trimmed.startsWith(`"packages"`)) {
      inPackages = true;
      continue;
    }
    if (!inPackages) continue;
    if ((line === "  }," || line === "  }") && trimmed.startsWith("}")) break;
    // Every `"key": {` line opens an entry, nested objects ("dependencies", "engines") included.
    if (trimmed.endsWith(": {") || trimmed.endsWith(":{")) {
      save();
      const start = trimmed.indexOf('"');
      const end = trimmed.indexOf('"', start + 1);
      if (start >= 0 && end > start + 1) current = trimmed.slice(start + 1, end);
      version = "";
      link = false;
      continue;
    }
    if (trimmed.startsWith(`"version"`)) {
      const v = jsonStringValue(trimmed);
      if (v) version = v;
      continue;
    }
    if (trimmed.startsWith(`"link": true`)) link = true;
  }
  save();
  return deps;
}

/** pnpm.go `pnpmLockParser`: the keys of the `packages:` section. */
export function parsePnpmLock(content: string): Dependency[] {
  const deps: Dependency[] = [];
  let inPackages = false;
  let current = "";
  const save = () => {
    if (!current) return;
    const { name, version } = pnpmKey(current);
    if (name) deps.push({ name, version });
  };
  for (const line of content.split("\n")) {
    if (line === "packages:") {
      inPackages = true;
      continue;
    }
    if (inPackages && line.length > 0 && line[0] !== " ") {
      save();
      inPackages = false;
      current = "";
    }
    if (!inPackages) continue;
    const key = pnpmKeyLine(line);
    if (key !== undefined) {
      save();
      current = key;
    }
  }
  save();
  return deps;
}

function pnpmKeyLine(line: string): string | undefined {
  if (line.length < 4 || line[0] !== " " || line[1] !== " " || !line.endsWith(":")) return undefined;
  let key = line.slice(2, -1);
  if (key.length >= 2 && (key[0] === "'" || key[0] === '"')) key = key.slice(1, -1);
  if (!key || (key[0] !== "/" && key[0] !== "@" && !key.includes("@"))) return undefined;
  return key;
}

function pnpmKey(key: string): Dependency {
  key = key.replace(/^\//, "");
  const cut = (v: string) => (v.indexOf("(") > 0 ? v.slice(0, v.indexOf("(")) : v);
  if (key.startsWith("@")) {
    const rest = key.slice(1);
    const slash = rest.indexOf("/");
    if (slash > 0) {
      const after = rest.slice(slash + 1);
      const nextSlash = after.indexOf("/");
      if (nextSlash > 0)
        return { name: `@${rest.slice(0, slash + 1 + nextSlash)}`, version: cut(after.slice(nextSlash + 1)) };
      const at = after.indexOf("@");
      if (at > 0) return { name: `@${rest.slice(0, slash + 1 + at)}`, version: cut(after.slice(at + 1)) };
    }
    return { name: "", version: "" };
  }
  const slash = key.indexOf("/");
  if (slash > 0) return { name: key.slice(0, slash), version: cut(key.slice(slash + 1)) };
  const at = key.lastIndexOf("@");
  if (at > 0) return { name: key.slice(0, at), version: cut(key.slice(at + 1)) };
  return { name: "", version: "" };
}

/** yarn.go `yarnLockParser` (v1 and berry): each name once, with the version of its first entry. */
export function parseYarnLock(content: string): Dependency[] {
  const deps: Dependency[] = [];
  const seen = new Set<string>();
  let name = "";
  let version = "";
  for (const line of content.split("\n")) {
    if (!line || line[0] === "#" || line.startsWith("__metadata:")) continue;
    if (line[0] !== " " && line[0] !== "\t") {
      if (name && version && !seen.has(name)) {
        seen.add(name);
        deps.push({ name, version });
      }
      name = yarnHeader(line);
      version = "";
      continue;
    }
    const trimmed = line.replace(/^[ \t]+/, "");
    if (trimmed.startsWith("version")) version = yarnValue(trimmed.slice(7));
  }
  if (name && version && !seen.has(name) && !version.startsWith("0.0.0-use.local")) deps.push({ name, version });
  return deps;
}

function yarnHeader(line: string): string {
  if (line[0] === '"') line = line.slice(1);
  let at = line.indexOf("@");
  if (at < 0) return "";
  if (at === 0) {
    const next = line.indexOf("@", 1);
    if (next < 0) return "";
    at = next;
  }
  const name = line.slice(0, at);
  const alias = name.indexOf("@npm:");
  return alias > 0 ? name.slice(alias + 5) : name;
}

function yarnValue(s: string): string {
  s = s.replace(/^[ \t:]+/, "");
  if (!s) return "";
  if (s[0] === '"') {
    const end = s.indexOf('"', 1);
    return end < 0 ? s.slice(1) : s.slice(1, end);
  }
  const end = s.search(/[ \t]/);
  return end > 0 ? s.slice(0, end) : s;
}
