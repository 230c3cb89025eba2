// The package's public surface is what README "API" lists, no more and no less: every exported
// name is a promise kept across releases, so one cannot be added, dropped or change kind without
// the README changing with it. Read from the entry's declaration file, as users' compilers see it.
import * as fs from "node:fs";
import * as path from "node:path";
import ts from "typescript";
import { expect, test } from "vitest";
import { repoRoot } from "../scripts/toolchain";

type Kind = "class" | "function" | "const" | "type";

/** The entry's exported names and their kinds, from dist/provider/index.d.ts (built by `npm test`'s pretest). */
function exported(): Record<string, Kind> {
  const entry = path.join(repoRoot, "dist", "provider", "index.d.ts");
  const program = ts.createProgram([entry], { noEmit: true, skipLibCheck: true });
  const checker = program.getTypeChecker();
  const symbol = checker.getSymbolAtLocation(program.getSourceFile(entry)!)!;
  const out: Record<string, Kind> = {};
  for (const s of checker.getExportsOfModule(symbol)) {
    const flags = (s.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(s) : s).flags;
    out[s.name] =
      flags & ts.SymbolFlags.Class ? "class" : flags & ts.SymbolFlags.Function ? "function" : flags & ts.SymbolFlags.Variable ? "const" : "type";
  }
  return out;
}

/** README's API table: `| \`name\` | kind | what |` rows between its markers. */
function documented(): Record<string, string> {
  const readme = fs.readFileSync(path.join(repoRoot, "README.md"), "utf8");
  const section = /<!-- api -->([\s\S]*?)<!-- \/api -->/.exec(readme)?.[1] ?? "";
  return Object.fromEntries([...section.matchAll(/^\| `([A-Za-z0-9]+)` \| (\w+) \|/gm)].map((m) => [m[1], m[2]]));
}

test("README's API section lists exactly the entry's exports, each with its kind", () => {
  const actual = exported();
  expect(Object.keys(actual).length).toBeGreaterThan(20);
  expect(actual.StorageUser).toBe("class");
  expect(documented()).toEqual(actual);
});
