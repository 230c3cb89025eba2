/**
 * The public surface, as committed reports in surface/ (docs/development.md "Releases"): the npm
 * package's declarations (API Extractor's API report of each entry), the Go module (`go doc -all`
 * of each package), the Python package (griffe, tools/surface/python_api.py), the error and warning
 * codes (provider/messages.ts) and the settings' config keys and variables (provider/config.ts).
 *
 *   npm run surface                      rewrites every report from the build and the SDKs
 *   npm run surface -- --check [part…]   names each report that differs from the build; exit 1
 *
 * `npm test` runs the check (test/unit/surface.test.ts, test/e2e/surface.test.ts); `npm run
 * release` compares the reports with the last release's (`surfaceChanges`).
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { Extractor, ExtractorConfig } from "@microsoft/api-extractor";
import { refuseInUnitTier, repoRoot } from "./toolchain";

export type Part = "typescript" | "codes" | "config" | "go" | "python";
export const allParts: Part[] = ["typescript", "codes", "config", "go", "python"];

/** The package's API entries (package.json `exports`), each with its declaration file's name in dist/provider. */
export const entries = { ".": "index", "./automation": "automation", "./testing": "testing" } as const;

/** Each part's report files, relative to the repository's root. */
export const reportFiles: Record<Part, string[]> = {
  typescript: Object.values(entries).map((e) => `surface/typescript/${e}.api.md`),
  codes: ["surface/codes.txt"],
  config: ["surface/config.txt"],
  go: ["surface/go.txt"],
  python: ["surface/python.txt"],
};

const run = (cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env) => {
  try {
    return execFileSync(cmd, args, { cwd, env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  } catch (err) {
    const { stdout, stderr } = err as { stdout?: string; stderr?: string };
    throw new Error(`${cmd} ${args.join(" ")} failed in ${cwd}:\n${stdout ?? ""}${stderr ?? ""}`, { cause: err });
  }
};
const lastLine = (text: string) => text.trim().split("\n").pop()!;

/** The executables of the tools the Go and Python parts need, built or installed into the cache once. */
export const tools = {
  apidiff: () => lastLine(run("bash", ["tools/apidiff/build.sh"], repoRoot)),
  griffePython: () => path.join(lastLine(run("bash", ["tools/toolchain/griffe.sh"], repoRoot)), "venv/bin/python"),
};

/** API Extractor's report of one entry of the package at `root`, built (dist/provider/<entry>.d.ts). */
function apiReport(root: string, entry: string): string {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "psu-api-report-"));
  try {
    const dts = path.join(root, "dist", "provider", `${entry}.d.ts`);
    const config = ExtractorConfig.prepare({
      configObject: {
        projectFolder: root,
        newlineKind: "lf",
        mainEntryPointFilePath: dts,
        // The declarations as users' compilers see them; skipLibCheck as the package's own build has it.
        compiler: {
          overrideTsconfig: {
            compilerOptions: {
              strict: true,
              skipLibCheck: true,
              module: "commonjs",
              moduleResolution: "node",
              types: ["node"],
            },
            files: [dts],
          },
        },
        apiReport: {
          enabled: true,
          reportFileName: `${entry}.api.md`,
          reportFolder: tmp,
          reportTempFolder: path.join(tmp, "temp"),
          // Types an export uses without exporting them (a StorageUser's outputs, an error's details)
          // are part of what users depend on: they are in the report, spelt out.
          includeForgottenExports: true,
        },
        docModel: { enabled: false },
        dtsRollup: { enabled: false },
        tsdocMetadata: { enabled: false },
        messages: {
          // The report is the product; these notes about the package's doc comments are TypeDoc's
          // business (test/e2e/reference.test.ts). A note added to the report would carry a line
          // number, so the report would change with every edit above a declaration.
          extractorMessageReporting: {
            default: { logLevel: "warning" as never, addToApiReportFile: false },
            "ae-missing-release-tag": { logLevel: "none" as never },
            "ae-forgotten-export": { logLevel: "none" as never, addToApiReportFile: false },
            "ae-undocumented": { logLevel: "none" as never },
            "ae-unresolved-link": { logLevel: "none" as never },
          },
          tsdocMessageReporting: { default: { logLevel: "none" as never } },
          compilerMessageReporting: { default: { logLevel: "error" as never } },
        },
      },
      configObjectFullPath: undefined,
      packageJsonFullPath: path.join(root, "package.json"),
    });
    const messages: string[] = [];
    const result = Extractor.invoke(config, {
      localBuild: true,
      messageCallback: (m) => {
        // Its console notes ("the API report file was missing…") are about the temp folder.
        const problem = m.logLevel === ("warning" as never) || m.logLevel === ("error" as never);
        if (problem && m.category !== ("console" as never)) messages.push(m.text);
        m.handled = true;
      },
    });
    if (!result.succeeded || messages.length)
      throw new Error(`API Extractor on ${dts}: ${result.errorCount} error(s)\n${messages.join("\n")}`);
    return fs.readFileSync(path.join(tmp, `${entry}.api.md`), "utf8");
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

/** A module of the tree's own build, by path: the release reads the last release's build and this one. */
function load(root: string, module: string): Record<string, unknown> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a module chosen at run time, by path
  return require(path.join(root, "dist", "provider", module)) as Record<string, unknown>;
}

/** The catalogue's codes: `error <CODE>` and `warning <CODE>`, in the catalogue's order. */
function codesReport(root: string): string {
  const { errorCodes, warningCodes } = load(root, "messages.js") as { errorCodes: string[]; warningCodes: string[] };
  return [...errorCodes.map((c) => `error ${c}`), ...warningCodes.map((c) => `warning ${c}`)].join("\n") + "\n";
}

/**
 * The settings' config keys (`config <key>`) and environment variables (`env <VARIABLE> (<what it
 * stands for>)`), as provider/config.ts answers: the keys its check accepts in each namespace (the
 * list its `[CONFIG_INVALID]` for an unknown key names) and the variable `settingKeys` gives each.
 */
function configReport(root: string): string {
  type Keys = { key: string; env: string };
  const config = load(root, "config.js") as {
    checkConfig: (values: Record<string, string>, plainAt: () => undefined, options: { ns: string }) => void;
    settingKeys: (which: string, connection: string | undefined, ns: string) => Keys;
  };
  const known = (values: Record<string, string>, ns: string): string[] => {
    try {
      config.checkConfig(values, () => undefined, { ns });
    } catch (err) {
      const details = (err as { details?: { known?: string[] } }).details;
      if (details?.known) return details.known;
      throw err;
    }
    throw new Error(`checkConfig in ${root} accepted ${JSON.stringify(values)}`);
  };
  const keys: string[] = [];
  const env = new Map<string, string[]>();
  const variable = (name: string, what: string) => env.set(name, [...(env.get(name) ?? []), what]);
  for (const ns of ["storage", "storage-user"]) {
    const top = known({ [`${ns}:unknown-key-of-the-report`]: "x" }, ns);
    keys.push(...top);
    for (const key of top) {
      const which = key.slice(ns.length + 1);
      if (which === "connections") {
        // Each named connection's keys, as the check of one entry names them ("name" stands for any name).
        const inner = known({ [key]: JSON.stringify({ name: { unknownKeyOfTheReport: "x" } }) }, ns);
        keys.push(...inner.map((k) => k.replace(`${key}.name.`, `${key}.<name>.`)));
        continue;
      }
      variable(config.settingKeys(which, undefined, ns).env, key);
      const named = config.settingKeys(which, "name", ns);
      variable(
        named.env.replace(/_NAME$/, "_<NAME>"),
        named.key ? named.key.replace(".name.", ".<name>.") : `the plugin's connection <name>, its ${which}`,
      );
    }
  }
  return [
    ...keys.map((k) => `config ${k}`),
    ...[...env].sort().map(([name, what]) => `env ${name} (${[...new Set(what)].join("; ")})`),
    "",
  ].join("\n");
}

/** `go doc -all` of each package of the Go module at `<root>/sdk/go` but its internal ones. */
function goReport(root: string): string {
  const dir = path.join(root, "sdk", "go");
  const env = { ...process.env, GOFLAGS: "-mod=readonly", GOWORK: "off" };
  const packages = run("go", ["list", "./..."], dir, env)
    .trim()
    .split("\n")
    .filter((p) => !p.split("/").includes("internal"));
  return packages.map((p) => run("go", ["doc", "-all", p], dir, env)).join("\n");
}

/** The Python package at `<root>/sdk/python`, one line per public object (tools/surface/python_api.py). */
function pythonReport(root: string): string {
  const script = path.join(repoRoot, "tools", "surface", "python_api.py");
  return run(tools.griffePython(), [script, "report", path.join(root, "sdk", "python")], root);
}

/** The reports of the tree at `root` (its dist/ built), by file relative to the root. */
export function makeReports(root: string, parts: Part[] = allParts): Map<string, string> {
  if (parts.includes("go") || parts.includes("python")) refuseInUnitTier("the Go and Python surface reports");
  const out = new Map<string, string>();
  for (const part of parts) {
    if (part === "typescript")
      for (const [i, entry] of Object.values(entries).entries())
        out.set(reportFiles.typescript[i], apiReport(root, entry));
    if (part === "codes") out.set(reportFiles.codes[0], codesReport(root));
    if (part === "config") out.set(reportFiles.config[0], configReport(root));
    if (part === "go") out.set(reportFiles.go[0], goReport(root));
    if (part === "python") out.set(reportFiles.python[0], pythonReport(root));
  }
  return out;
}

/** The committed reports that differ from the tree's own, each with the lines only one of them has. */
export function staleReports(root: string, parts: Part[] = allParts): string[] {
  const stale: string[] = [];
  for (const [file, built] of makeReports(root, parts)) {
    const at = path.join(root, file);
    const committed = fs.existsSync(at) ? fs.readFileSync(at, "utf8") : undefined;
    if (committed === built) continue;
    if (committed === undefined) {
      stale.push(`${file}: missing`);
      continue;
    }
    const [a, b] = [committed.split("\n"), built.split("\n")];
    const only = (x: string[], y: string[], sign: string) =>
      x.filter((l) => !y.includes(l)).map((l) => `  ${sign} ${l}`);
    const lines = [...only(a, b, "-"), ...only(b, a, "+")];
    stale.push(
      `${file}:\n${(lines.length ? lines : ["  (the same lines, in another order)"]).slice(0, 40).join("\n")}`,
    );
  }
  return stale;
}

/** What the check prints when reports are stale: the differences, then the command that rewrites them. */
export const staleMessage = (stale: string[]) =>
  `the public surface differs from its committed report (surface/):\n${stale.join("\n")}\n` +
  "if the change is meant, rewrite the reports with `npm run surface`, commit them, and name each removed or changed name in CHANGELOG.md's [Unreleased] upgrade notes";

// ---- Comparing two releases' surfaces ----

/** A removed or changed name of the public surface: where (`pulumi-storage-user/automation`, `Go`…), what, and which. */
export type Change = { surface: string; name: string; what: string };

/**
 * An API Extractor report as declarations, each a map from a path (`StackLike`,
 * `StackLike.workspace`, `messages.errors.CONFIG_INVALID`: the declaration and up to two levels of
 * members) to its lines. Comments (`// @public`, `(undocumented)`) are not the API and are left out.
 */
function declarations(report: string): Map<string, { exported: boolean; paths: Map<string, string[]> }> {
  const code = /```ts\n([\s\S]*?)```/.exec(report)?.[1] ?? "";
  const found = new Map<string, { exported: boolean; paths: Map<string, string[]> }>();
  for (const chunk of code.split(/\n\s*\n/)) {
    const lines = chunk.split("\n").filter((l) => l.trim() && !l.startsWith("//"));
    const head =
      /^(export )?(?:declare )?(?:abstract )?(?:class|interface|type|function|const|let|var|enum|namespace) ([\w$]+)/.exec(
        lines[0] ?? "",
      );
    if (!head) continue;
    const decl = found.get(head[2]) ?? { exported: !!head[1], paths: new Map<string, string[]>() };
    found.set(head[2], decl);
    const stack: string[] = [];
    let depth = 0;
    for (const line of lines) {
      const member = /^\s*(?:(?:readonly|static|protected|get|set|abstract) )*([\w$]+|"[^"]+"|\[[^\]]+\])\??[:(<]/.exec(
        line,
      );
      if (depth >= 1 && member) stack.splice(depth - 1, Infinity, member[1].replace(/"/g, ""));
      // A closing brace belongs to what it closes, not to the member before it.
      else stack.splice(line.trim().startsWith("}") ? depth - 1 : depth, Infinity);
      const key = [head[2], ...stack.slice(0, Math.min(depth, 2))].join(".");
      decl.paths.set(key, [...(decl.paths.get(key) ?? []), line.trim()]);
      depth += (line.match(/\{/g) ?? []).length - (line.match(/\}/g) ?? []).length;
    }
  }
  return found;
}

/** The entry a report file is of, as users import it. */
const entryOf = (file: string) => {
  const name = path.basename(file, ".api.md");
  return name === "index" ? "pulumi-storage-user" : `pulumi-storage-user/${name}`;
};

/** Removed and changed names between two sets of reports (typescript, codes, config); additions are no change. */
export function reportChanges(before: Map<string, string>, after: Map<string, string>): Change[] {
  const changes: Change[] = [];
  for (const file of reportFiles.typescript) {
    if (!before.has(file)) continue;
    const [old, now] = [declarations(before.get(file)!), declarations(after.get(file) ?? "")];
    for (const [name, decl] of old) {
      const next = now.get(name);
      // A type no export uses any more left the surface with that export's change: named there.
      if (!next && !decl.exported) continue;
      if (!next) {
        changes.push({ surface: entryOf(file), name, what: "removed" });
        continue;
      }
      const reported: string[] = [];
      for (const [key, lines] of decl.paths) {
        if (reported.some((r) => key.startsWith(`${r}.`))) continue;
        const nextLines = next.paths.get(key);
        const what = !nextLines ? "removed" : lines.join("\n") !== nextLines.join("\n") ? "changed" : undefined;
        if (!what) continue;
        reported.push(key);
        // A type two entries spell out (the catalogue's, through StorageUserError) is one change, of both.
        const same = changes.find(
          (c) => c.name === key && c.what === what && c.surface.startsWith("pulumi-storage-user"),
        );
        if (same) same.surface += `, ${entryOf(file)}`;
        else changes.push({ surface: entryOf(file), name: key, what });
      }
    }
  }
  const lines = (map: Map<string, string>, file: string) => (map.get(file) ?? "").split("\n").filter(Boolean);
  for (const [file, surface] of [
    [reportFiles.codes[0], "codes"],
    [reportFiles.config[0], "config"],
  ]) {
    if (!before.has(file)) continue;
    const now = lines(after, file);
    for (const line of lines(before, file)) {
      if (now.includes(line)) continue;
      const [kind, name] = line.split(" ");
      const changed = now.some((l) => l.split(" ")[0] === kind && l.split(" ")[1] === name);
      changes.push({ surface, name, what: changed ? `changed: was ${line}` : `removed (${kind})` });
    }
  }
  return changes;
}

/** apidiff's incompatible changes between the Go modules at `<before>/sdk/go` and `<after>/sdk/go`. */
export function goChanges(before: string, after: string): Change[] {
  const dirs = [before, after].map((root) => path.join(root, "sdk", "go"));
  if (!fs.existsSync(path.join(dirs[0], "go.mod"))) return [];
  const apidiff = tools.apidiff();
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "psu-apidiff-"));
  try {
    const env = { ...process.env, GOFLAGS: "-mod=readonly", GOWORK: "off" };
    const exports = dirs.map((dir, i) => {
      const file = path.join(tmp, `${i}.export`);
      const module = /^module (\S+)/m.exec(fs.readFileSync(path.join(dir, "go.mod"), "utf8"))![1];
      run(apidiff, ["-m", "-w", file, module], dir, env); // in the module's folder: that copy, not the module cache's
      return file;
    });
    const out = run(apidiff, ["-m", "-incompatible", ...exports], tmp, env);
    return out
      .split("\n")
      .filter((l) => l.startsWith("- "))
      .map((l) => {
        const [, subject, what] = /^- (.*): ([^:]*)$/.exec(l) ?? [undefined, l.slice(2), "changed"];
        // `pkg.(*Embedded).Method, method set of *T`: a promoted method T no longer has.
        const promoted = /\.\(\*?\w+\)\.(\w+), method set of \*?(?:.*\.)?(\w+)$/.exec(subject);
        const name = promoted ? `${promoted[2]}.${promoted[1]}` : subject.replace(/^\.\/(?:[\w-]+\/)*[\w-]+\./, "");
        return { surface: "Go", name, what };
      });
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

/** griffe's breaking changes between the Python packages at `<before>/sdk/python` and `<after>/sdk/python`. */
export function pythonChanges(before: string, after: string): Change[] {
  const dirs = [before, after].map((root) => path.join(root, "sdk", "python"));
  if (!fs.existsSync(dirs[0])) return [];
  const script = path.join(repoRoot, "tools", "surface", "python_api.py");
  const out = run(tools.griffePython(), [script, "check", ...dirs], after, { ...process.env, NO_COLOR: "1" });
  return out
    .replace(/\x1b\[[0-9;]*m/g, "") // eslint-disable-line no-control-regex -- colour codes griffe may still print
    .split("\n")
    .filter(Boolean)
    .map((l) => {
      const [, name, what] = /^.*?:\d+: ([^:]+): (.*)$/.exec(l) ?? [undefined, l, "changed"];
      return {
        surface: "Python",
        name: name.replace(/\(.*\)$/, ""),
        what: `${what}${/\((.*)\)$/.exec(name)?.[0] ?? ""}`,
      };
    });
}

/**
 * Whether upgrade notes name a change: the name, or its last two segments (`Credentials.ftp` for
 * `outputs.Credentials.ftp`), stands in them as a word; a member of a type the package does not
 * export by name (the catalogue's `messages.errors.CONFIG_INVALID`) is named by its last segment.
 */
export function namedIn(notes: string, change: Change, exportedNames: Set<string> = new Set()): boolean {
  const segments = change.name.split(".");
  const candidates = [change.name, segments.slice(-2).join(".")];
  if (segments.length > 2 && !exportedNames.has(segments[0])) candidates.push(segments.at(-1)!);
  return candidates.some((c) =>
    new RegExp(`(?<![\\w$.])${c.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}(?![\\w$])`).test(notes),
  );
}

/** The names each TypeScript report declares as exports (for namedIn). */
export function exportedNames(reports: Map<string, string>): Set<string> {
  const names = new Set<string>();
  for (const file of reportFiles.typescript)
    for (const [name, decl] of declarations(reports.get(file) ?? "")) if (decl.exported) names.add(name);
  return names;
}

/** Names and kinds of each entry's exports, from its committed report: `class`, `function`, `const` or `type`. */
export function exportsOf(report: string): Record<string, string> {
  const code = /```ts\n([\s\S]*?)```/.exec(report)?.[1] ?? "";
  const out: Record<string, string> = {};
  for (const m of code.matchAll(
    /^export (?:declare )?(?:abstract )?(class|interface|type|function|const|let|var|enum|namespace) ([\w$]+)/gm,
  ))
    out[m[2]] =
      out[m[2]] === "class" || m[1] === "class"
        ? "class"
        : ["interface", "type"].includes(m[1])
          ? "type"
          : m[1] === "function"
            ? "function"
            : "const";
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => (a < b ? -1 : 1)));
}

function main(): void {
  const args = process.argv.slice(2);
  const check = args.includes("--check");
  const parts = args.filter((a) => a !== "--check") as Part[];
  const unknown = parts.filter((p) => !allParts.includes(p));
  if (unknown.length) {
    console.error(`surface: unknown part ${unknown.join(", ")}; the parts: ${allParts.join(", ")}`);
    process.exit(2);
  }
  const which = parts.length ? parts : allParts;
  if (check) {
    const stale = staleReports(repoRoot, which);
    if (stale.length) {
      console.error(staleMessage(stale));
      process.exit(1);
    }
    console.log(`surface: the committed reports match (${which.join(", ")})`);
    return;
  }
  for (const [file, text] of makeReports(repoRoot, which)) {
    fs.mkdirSync(path.dirname(path.join(repoRoot, file)), { recursive: true });
    fs.writeFileSync(path.join(repoRoot, file), text);
    console.log(`wrote ${file}`);
  }
}

if (require.main === module) main();
