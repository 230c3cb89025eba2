// The reference `npm run docs` generates (TypeDoc, typedoc.json) is whole: every export of every
// entry, each documented, and exactly the exports of the committed API reports (surface/typescript). TypeDoc's
// own validation is the check, turned into errors by typedoc.json, so an undocumented export fails it.
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, expect, test } from "vitest";
import { exportsOf } from "../../scripts/surface";
import { repoRoot } from "../../scripts/toolchain";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "reference-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const docs = (cwd: string, ...args: string[]) =>
  spawnSync("npm", ["run", "-s", "docs", "--", ...args], {
    cwd,
    encoding: "utf8",
    env: { ...process.env, NO_COLOR: "1", FORCE_COLOR: "0" },
  });

test("npm run docs passes its validation, which fails on an undocumented export, and documents every export of every entry", () => {
  // A copy of the package whose envOf lost its doc comment: the run fails and names it.
  const copy = path.join(tmp, "copy");
  for (const f of ["provider", "cli", "package.json", "tsconfig.json", "typedoc.json"])
    fs.cpSync(path.join(repoRoot, f), path.join(copy, f), { recursive: true });
  fs.symlinkSync(path.join(repoRoot, "node_modules"), path.join(copy, "node_modules"));
  const model = path.join(copy, "provider", "model.ts");
  fs.writeFileSync(model, fs.readFileSync(model, "utf8").replace(/^\/\*\*.*\*\/\n(?=export function envOf)/m, ""));
  const bad = docs(copy, "--out", path.join(tmp, "bad"));
  expect(bad.status).not.toBe(0);
  expect(bad.stdout + bad.stderr).toContain("index.envOf (CallSignature), defined in");
  const json = path.join(tmp, "reference.json");
  const r = docs(repoRoot, "--out", path.join(tmp, "html"), "--json", json);
  expect(r.status, r.stdout + r.stderr).toBe(0);
  expect(r.stdout + r.stderr).not.toMatch(/\[(warning|error)\]/);
  expect(fs.existsSync(path.join(tmp, "html", "index.html"))).toBe(true);
  // The pinned surface, as TypeDoc saw it: one module per entry, each export once, same kind
  // (TypeDoc's ReflectionKind, as exportsOf names them).
  const kindOf: Record<number, string> = { 128: "class", 64: "function", 32: "const", 256: "type", 2097152: "type" };
  const reference = JSON.parse(fs.readFileSync(json, "utf8")) as {
    children: Array<{ name: string; children: Array<{ name: string; kind: number }> }>;
  };
  const modules = Object.fromEntries(
    reference.children.map((m) => [
      m.name,
      Object.fromEntries(m.children.map((c) => [c.name, kindOf[c.kind] ?? `kind ${c.kind}`])),
    ]),
  );
  const pinned = (entry: string) =>
    exportsOf(fs.readFileSync(path.join(repoRoot, "surface", "typescript", `${entry}.api.md`), "utf8"));
  expect(Object.keys(pinned("index")).length).toBeGreaterThan(10);
  expect(modules).toEqual({ index: pinned("index"), automation: pinned("automation"), testing: pinned("testing") });
});
