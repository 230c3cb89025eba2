// The reference `npm run docs` generates (TypeDoc, typedoc.json) is whole: every export of every
// entry, each documented, and exactly the pinned surface (test/support/public-surface.json). TypeDoc's
// own validation is the check, turned into errors by typedoc.json, so an undocumented export fails it.
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, expect, test } from "vitest";
import { repoRoot } from "../../scripts/toolchain";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "reference-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
const read = (f: string) => JSON.parse(fs.readFileSync(path.join(repoRoot, f), "utf8"));

test("npm run docs passes its validation, which fails on an undocumented export, and documents every export of every entry", () => {
  expect(read("package.json").scripts.docs).toBe("typedoc");
  // Where the README says the reference goes: under dist/, which git ignores and npm does not pack.
  const config = read("typedoc.json");
  expect([config.out, config.entryPoints]).toEqual([
    "dist/docs",
    ["provider/index.ts", "provider/automation.ts", "provider/testing.ts"],
  ]);
  // What makes an export without a doc comment fail the run, not just warn.
  expect([config.validation.notDocumented, config.treatValidationWarningsAsErrors]).toEqual([true, true]);
  const json = path.join(tmp, "reference.json");
  const typedoc = path.join(repoRoot, "node_modules", "typedoc", "bin", "typedoc");
  const r = spawnSync(process.execPath, [typedoc, "--out", path.join(tmp, "html"), "--json", json], {
    cwd: repoRoot,
    encoding: "utf8",
    env: { ...process.env, NO_COLOR: "1", FORCE_COLOR: "0" },
  });
  expect(r.status, r.stdout + r.stderr).toBe(0);
  expect(r.stdout + r.stderr).not.toMatch(/\[(warning|error)\]/);
  expect(fs.existsSync(path.join(tmp, "html", "index.html"))).toBe(true);
  // The pinned surface, as TypeDoc saw it: one module per entry, each export once, same kind
  // (TypeDoc's ReflectionKind, as public-surface.json names them).
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
  const pinned = read("test/support/public-surface.json");
  expect(modules).toEqual({ index: pinned["."], automation: pinned["./automation"], testing: pinned["./testing"] });
});
