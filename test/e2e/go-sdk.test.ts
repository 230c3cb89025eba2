// The Go SDK in sdk/go is what the plugin's schema generates (tools/go-sdkgen). That the schema
// describes the TypeScript resource, secret alike, is test/unit/model.test.ts's.
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { repoRoot } from "../../scripts/toolchain";
import { schema, typeToken } from "../../dist/provider/plugin/schema";

let tmp: string;
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "go-sdk-"));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** Every file under dir, by path relative to it. */
function tree(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out.set(path.relative(dir, p), fs.readFileSync(p, "utf8"));
    }
  };
  walk(dir);
  return out;
}

/** The files that differ between two trees (missing on one side included). */
function differences(a: Map<string, string>, b: Map<string, string>): string[] {
  return [...new Set([...a.keys(), ...b.keys()])].filter((f) => a.get(f) !== b.get(f)).sort();
}

test("sdk/go/storageuser is exactly what tools/go-sdkgen generates from the schema (run generate.sh and commit when this fails)", () => {
  const out = path.join(tmp, "generated");
  execFileSync("bash", [path.join(repoRoot, "tools", "go-sdkgen", "generate.sh"), out], {
    stdio: ["ignore", "inherit", "inherit"],
  });
  const committed = tree(path.join(repoRoot, "sdk", "go", "storageuser"));
  expect(committed.size).toBeGreaterThan(5);
  expect(differences(committed, tree(out))).toEqual([]);

  // The comparison sees a change: a schema with one description edited generates another file.
  const gen = execFileSync("bash", [path.join(repoRoot, "tools", "go-sdkgen", "build.sh")], {
    encoding: "utf8",
  }).trim();
  const edited = structuredClone(schema);
  (edited.resources[typeToken].properties as Record<string, { description: string }>).userId.description = "Edited.";
  fs.writeFileSync(path.join(tmp, "edited.json"), JSON.stringify(edited));
  execFileSync(gen, [path.join(tmp, "edited.json"), path.join(tmp, "edited")], { stdio: "ignore" });
  expect(differences(committed, tree(path.join(tmp, "edited")))).toEqual(["storageUser.go"]);
});

test("the SDK's module path and package name are the schema's language.go", () => {
  const goMod = fs.readFileSync(path.join(repoRoot, "sdk", "go", "go.mod"), "utf8");
  const modulePath = /^module (\S+)$/m.exec(goMod)![1];
  expect(schema.language.go.importBasePath).toBe(`${modulePath}/storageuser`);
  expect(fs.readFileSync(path.join(repoRoot, "sdk", "go", "storageuser", "doc.go"), "utf8")).toMatch(
    /^package storageuser$/m,
  );
});
