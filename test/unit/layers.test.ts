// The layers of docs/development.md "Layers": each file imports only from its layer or those above it, type
// imports included, and no import circle; the library never imports the command-line tool. Loads are read from the
// syntax tree: import and export, import(), typeof import(), require() and require.resolve().
import * as fs from "node:fs";
import * as path from "node:path";
import ts from "typescript";
import { expect, test } from "vitest";
import { repoRoot } from "../../scripts/toolchain";

const layers: [number, RegExp][] = [
  [1, /^provider\/(defaults|model|identity)\.ts$/],
  [2, /^provider\/(messages|config|project-file|arguments)\.ts$/],
  [3, /^provider\/core\//],
  [4, /^provider\//],
  [5, /^cli\//],
];
const layerOf = (file: string) => layers.find(([, re]) => re.test(file))![0];
const files = ["provider", "cli"].flatMap((d) =>
  (fs.readdirSync(path.join(repoRoot, d), { recursive: true }) as string[])
    .filter((f) => f.endsWith(".ts"))
    .map((f) => `${d}/${f}`),
);
/** Files loaded by a name the code builds at run time, which no reading can resolve: each such file, and what it loads. */
const dynamic: Record<string, string[]> = {
  "provider/serializable.ts": ["provider/runtime.ts", "provider/ledger-runtime.ts"],
  "provider/project-file.ts": [], // the project's @pulumi/pulumi and pulumi-storage-user, resolved from its main, not loaded
  "provider/core/engine-log.ts": [], // @grpc/grpc-js, resolved from @pulumi/pulumi's directory
};
/**
 * What a file loads of provider/ and cli/: `import`/`export … from`, `import("…")` and `typeof import("…")`,
 * `require("…")` and `require.resolve("…")`, relative or through the package's own name (`pulumi-storage-user/dist/…`).
 * Read from the syntax tree, so comments and strings that name a module are not loads. A load by a built name
 * is `dynamic` above, or returned as `<dynamic>` so that the test names it.
 */
function importsOf(file: string): string[] {
  const source = ts.createSourceFile(file, fs.readFileSync(path.join(repoRoot, file), "utf8"), ts.ScriptTarget.Latest);
  const found: string[] = [];
  const add = (node: ts.Node | undefined) => {
    if (node && (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node))) {
      const name = node.text;
      const own = /^pulumi-storage-user\/dist\/((?:provider|cli)\/.+?)(?:\.js)?$/.exec(name);
      if (name.startsWith("."))
        found.push(path.posix.join(path.posix.dirname(file), `${name.replace(/\.js$/, "")}.ts`));
      else if (own) found.push(`${own[1]}.ts`);
    } else if (node) found.push(...(dynamic[file] ?? ["<dynamic>"]));
  };
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier)
      add(node.moduleSpecifier);
    else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) add(node.argument.literal);
    else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference))
      add(node.moduleReference.expression);
    else if (ts.isCallExpression(node)) {
      const callee = node.expression.getText(source);
      if (["require", "require.resolve"].includes(callee) || node.expression.kind === ts.SyntaxKind.ImportKeyword)
        add(node.arguments[0]);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return [...new Set(found)];
}

test("every import of provider/ and cli/ points down the layers, and none runs in a circle", () => {
  const edges = files.flatMap((from) => importsOf(from).map((to) => [from, to] as const));
  expect(edges.length).toBeGreaterThan(40);
  // Every load is of a file that exists: a path the reading got wrong, or a load by a built name not listed, fails here.
  expect(edges.filter(([, to]) => !files.includes(to))).toStrictEqual([]);
  expect(edges.filter(([from, to]) => layerOf(to) > layerOf(from))).toStrictEqual([]);
  const seen = new Map<string, "open" | "done">();
  const circle = (file: string, trail: string[]): string[] | undefined => {
    if (seen.get(file) === "open") return [...trail, file];
    if (seen.get(file) === "done") return undefined;
    seen.set(file, "open");
    for (const [, to] of edges.filter(([from]) => from === file)) {
      const found = circle(to, [...trail, file]);
      if (found) return found;
    }
    seen.set(file, "done");
  };
  expect(files.map((f) => circle(f, [])).filter(Boolean)).toStrictEqual([]);
});

test("one file of provider/ reaches into @pulumi/pulumi's internals or patches a JavaScript global: the seam", () => {
  const reaches = /prototype|prepareStackTrace|stackTraceLimit|@pulumi\/pulumi\/proto|runtime\/state/;
  const reaching = files.filter(
    (f) => f.startsWith("provider/") && reaches.test(fs.readFileSync(path.join(repoRoot, f), "utf8")),
  );
  expect(reaching).toStrictEqual(["provider/core/sdk-seam.ts"]);
});
