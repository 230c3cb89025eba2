// The layers of docs/development.md "Layers": each file imports only from its layer or those above it, type
// imports included, and no import circle; the library never imports the command-line tool.
import * as fs from "node:fs";
import * as path from "node:path";
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
const importsOf = (file: string) =>
  [...fs.readFileSync(path.join(repoRoot, file), "utf8").matchAll(/^(?:import|export)[^;]*? from "(\.[^"]+)"/gms)].map(
    (m) => path.posix.join(path.posix.dirname(file), `${m[1]}.ts`),
  );

test("every import of provider/ and cli/ points down the layers, and none runs in a circle", () => {
  const edges = files.flatMap((from) => importsOf(from).map((to) => [from, to] as const));
  expect(edges.length).toBeGreaterThan(40);
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
