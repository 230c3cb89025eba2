// The reference `npm run docs` generates (TypeDoc, typedoc.json) is whole: every export of every
// entry, each documented. TypeDoc's own validation is the check (notDocumented, treated as an
// error); it is run here as `npm run docs` runs it, then on a copy with one undocumented export,
// which must fail: a config that validated nothing would pass the first run too.
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, expect, test } from "vitest";
import { repoRoot } from "../../scripts/toolchain";

const typedoc = path.join(repoRoot, "node_modules", "typedoc", "bin", "typedoc");
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "reference-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** TypeDoc with the project's typedoc.json, from `cwd`; output without colours. */
function runTypedoc(cwd: string, ...args: string[]) {
  const r = spawnSync(process.execPath, [typedoc, ...args], {
    cwd,
    encoding: "utf8",
    env: { ...process.env, NO_COLOR: "1", FORCE_COLOR: "0" },
  });
  // eslint-disable-next-line no-control-regex -- the escape character starts the colour codes cut here
  return { code: r.status, output: `${r.stdout}${r.stderr}`.replace(/\x1b\[[0-9;]*m/g, "") };
}

/** TypeDoc's reflection kinds (typedoc's ReflectionKind) as test/support/public-surface.json names them. */
const kindOf: Record<number, string> = { 128: "class", 64: "function", 32: "const", 256: "type", 2097152: "type" };

test("npm run docs passes its validation and documents every export of every entry", () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(repoRoot, "package.json"), "utf8")) as {
    scripts: Record<string, string>;
  };
  expect(pkg.scripts.docs).toBe("typedoc");
  // Where the README says the reference goes: under dist/, which git ignores and npm does not pack.
  const config = JSON.parse(fs.readFileSync(path.join(repoRoot, "typedoc.json"), "utf8")) as {
    out: string;
    entryPoints: string[];
  };
  expect(config.out).toBe("dist/docs");
  expect(config.entryPoints).toEqual(["provider/index.ts", "provider/automation.ts", "provider/testing.ts"]);
  const out = path.join(tmp, "html");
  const json = path.join(tmp, "reference.json");
  const r = runTypedoc(repoRoot, "--out", out, "--json", json);
  expect(r.code, r.output).toBe(0);
  expect(r.output).not.toMatch(/\[(warning|error)\]/);
  expect(fs.existsSync(path.join(out, "index.html"))).toBe(true);

  // The pinned surface, as TypeDoc saw it: one module per entry, each export once, same kind.
  const reference = JSON.parse(fs.readFileSync(json, "utf8")) as {
    children: { name: string; children: { name: string; kind: number }[] }[];
  };
  const modules = Object.fromEntries(
    reference.children.map((m) => [
      m.name,
      Object.fromEntries(m.children.map((c) => [c.name, kindOf[c.kind] ?? `kind ${c.kind}`])),
    ]),
  );
  const pinned = JSON.parse(
    fs.readFileSync(path.join(repoRoot, "test", "support", "public-surface.json"), "utf8"),
  ) as Record<string, Record<string, string>>;
  expect(modules).toEqual({ index: pinned["."], automation: pinned["./automation"], testing: pinned["./testing"] });
});

test("an export without a doc comment fails it", () => {
  const copy = path.join(tmp, "copy");
  fs.mkdirSync(copy);
  fs.cpSync(path.join(repoRoot, "provider"), path.join(copy, "provider"), { recursive: true });
  for (const f of ["package.json", "tsconfig.json", "typedoc.json"])
    fs.copyFileSync(path.join(repoRoot, f), path.join(copy, f));
  fs.symlinkSync(path.join(repoRoot, "node_modules"), path.join(copy, "node_modules"));
  fs.appendFileSync(path.join(copy, "provider", "index.ts"), "export const undocumentedProbe = 1;\n");

  const r = runTypedoc(copy, "--emit", "none");
  expect(r.code, r.output).not.toBe(0);
  expect(r.output).toContain(
    "index.undocumentedProbe (Variable), defined in pulumi-storage-user/provider/index.ts, does not have any documentation",
  );
  // Only the probe: the copy is otherwise the repo, which passes.
  expect(r.output).toContain("Found 0 errors and 1 warnings");
});
