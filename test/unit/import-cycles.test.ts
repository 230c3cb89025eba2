// provider/ has no import cycle, type-only imports included: each module can be read, and
// changed, without the ones that import it. Read with TypeScript's own pre-processor.
import * as fs from "node:fs";
import * as path from "node:path";
import ts from "typescript";
import { expect, test } from "vitest";
import { repoRoot } from "../../scripts/toolchain";

/** Each provider/ file and the provider/ files it imports. */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const file = path.join(dir, e.name);
      if (e.isDirectory()) walk(file);
      else if (file.endsWith(".ts")) {
        const imports = ts
          .preProcessFile(fs.readFileSync(file, "utf8"), true, true)
          .importedFiles.map((i) => i.fileName);
        const local = imports.filter((n) => n.startsWith(".")).map((n) => path.join(path.dirname(file), n));
        graph.set(
          path.relative(repoRoot, file),
          local.map((f) => path.relative(repoRoot, fs.existsSync(`${f}.ts`) ? `${f}.ts` : path.join(f, "index.ts"))),
        );
      }
    }
  };
  walk(path.join(repoRoot, "provider"));
  return graph;
}

function cycles(graph: Map<string, string[]>): string[] {
  const found: string[] = [];
  const [path_, onPath, done] = [[] as string[], new Set<string>(), new Set<string>()];
  const visit = (n: string) => {
    path_.push(n);
    onPath.add(n);
    for (const m of graph.get(n) ?? []) {
      if (onPath.has(m)) found.push([...path_.slice(path_.indexOf(m)), m].join(" -> "));
      else if (!done.has(m)) visit(m);
    }
    path_.pop();
    onPath.delete(n);
    done.add(n);
  };
  for (const n of graph.keys()) if (!done.has(n)) visit(n);
  return found;
}

test("the check finds a cycle when there is one", () => {
  expect(
    cycles(
      new Map([
        ["a", ["b"]],
        ["b", ["c"]],
        ["c", ["a"]],
      ]),
    ),
  ).toEqual(["a -> b -> c -> a"]);
});

test("provider/ has no import cycle", () => {
  const graph = importGraph();
  expect(graph.size).toBeGreaterThan(20);
  expect(graph.get("provider/plugin/user-provider.ts")).toContain("provider/errors.ts");
  expect(cycles(graph)).toEqual([]);
});
