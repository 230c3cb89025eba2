// The package's exports are those of its committed API reports (surface/typescript/*.api.md, made by
// API Extractor: test/unit/surface.test.ts holds them to the build), no more and no less: every exported
// name is a promise kept across releases, so one cannot be added, dropped or change kind without
// that committed file changing with it, in review. Read here by the compiler from the entries'
// declaration files, as users' compilers see them, a second reading beside API Extractor's;
// test/e2e/reference.test.ts holds the generated reference to the same list.
import * as fs from "node:fs";
import * as path from "node:path";
import ts from "typescript";
import { expect, test } from "vitest";
import { entries as reports, exportsOf } from "../../scripts/surface";
import { repoRoot } from "../../scripts/toolchain";

type Kind = "class" | "function" | "const" | "type";

/** The `exports` entries of package.json that are the API, and their declaration files (built by `npm test`'s pretest). */
const entries = { ".": "index.d.ts", "./automation": "automation.d.ts", "./testing": "testing.d.ts" } as const;

/** An entry's exported names and their kinds, from its declaration file. */
function exported(declarationFile: string): Record<string, Kind> {
  const entry = path.join(repoRoot, "dist", "provider", declarationFile);
  const program = ts.createProgram([entry], { noEmit: true, skipLibCheck: true });
  const checker = program.getTypeChecker();
  const symbol = checker.getSymbolAtLocation(program.getSourceFile(entry)!)!;
  const out: Record<string, Kind> = {};
  for (const s of checker.getExportsOfModule(symbol)) {
    const flags = (s.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(s) : s).flags;
    out[s.name] =
      flags & ts.SymbolFlags.Class
        ? "class"
        : flags & ts.SymbolFlags.Function
          ? "function"
          : flags & ts.SymbolFlags.Variable
            ? "const"
            : "type";
  }
  return out;
}

const pinned = Object.fromEntries(
  Object.entries(reports).map(([entry, name]) => [
    entry,
    exportsOf(fs.readFileSync(path.join(repoRoot, "surface", "typescript", `${name}.api.md`), "utf8")),
  ]),
) as Record<string, Record<string, Kind>>;

test("the pinned list covers exactly the API entries of package.json's exports; each resolves to its declaration file under both exports and typesVersions", () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(repoRoot, "package.json"), "utf8")) as {
    types: string;
    exports: Record<string, { types: string; default: string }>;
    typesVersions: { "*": Record<string, string[]> };
  };
  // The other keys are the plugin modules state `require`s and package.json: not for programs.
  const api = Object.keys(pkg.exports).filter((k) => !k.startsWith("./dist/") && k !== "./package.json");
  expect(api.sort()).toEqual(Object.keys(entries).sort());
  expect(Object.keys(pinned).sort()).toEqual(Object.keys(entries).sort());
  // `exports` serves node16/nodenext/bundler resolution and Node itself; `typesVersions` serves
  // TypeScript's node10 resolution (`moduleResolution: node`, the CommonJS default), which
  // ignores `exports`: a subpath missing from either has no types for one kind of project.
  for (const [entry, declarationFile] of Object.entries(entries)) {
    const dts = `dist/provider/${declarationFile}`;
    expect(pkg.exports[entry], entry).toEqual({ types: `./${dts}`, default: `./${dts.replace(/\.d\.ts$/, ".js")}` });
    if (entry === ".") expect(pkg.types).toBe(dts);
    else expect(pkg.typesVersions["*"][entry.slice(2)], entry).toEqual([dts]);
  }
  const subpaths = api.filter((e) => e !== ".").map((e) => e.slice(2));
  expect(Object.keys(pkg.typesVersions["*"]).sort()).toEqual(subpaths.sort());
});

test.each(Object.entries(entries))(
  "the %s entry exports exactly the pinned names, each with its kind",
  (entry, declarationFile) => {
    const actual = exported(declarationFile);
    expect(Object.keys(actual).length).toBeGreaterThan(2);
    if (entry === ".") expect(actual.StorageUser).toBe("class");
    expect(actual).toEqual(pinned[entry]);
  },
);
