/**
 * The bench's own copy of the package: the packed package as users install it (scripts/consumer.ts,
 * the same install the tests use) copied into bench/work/<name>/programs/node_modules beside copies
 * of bench/programs, so a run measures one snapshot even when the shared install is replaced
 * meanwhile. @pulumi/pulumi and undici resolve from the repo's node_modules further up.
 * BENCH_PACKAGE names another package root to measure instead (e.g. an older commit's build);
 * `from` is the package of a second workspace (bench.ts BENCH_VS).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { installConsumer } from "../scripts/consumer";
import { repoRoot } from "../scripts/stack";

export function workspace(
  name: string,
  from: string = process.env.BENCH_PACKAGE ?? path.join(installConsumer(), "node_modules", "pulumi-storage-user"),
): { dir: string; program: (p: string) => string } {
  const dir = path.join(repoRoot, "bench", "work", name);
  fs.rmSync(dir, { recursive: true, force: true });
  const programs = path.join(repoRoot, "bench", "programs");
  // Not the programs' node_modules link to the shared install; their package.json ends the repo's package scope.
  fs.cpSync(programs, path.join(dir, "programs"), {
    recursive: true,
    filter: (src) => path.basename(src) !== "node_modules",
  });
  const modules = path.join(dir, "programs", "node_modules");
  const pkg = JSON.parse(fs.readFileSync(path.join(from, "package.json"), "utf8")) as { name: string; files: string[] };
  for (const entry of ["package.json", ...pkg.files]) {
    if (fs.existsSync(path.join(from, entry)))
      fs.cpSync(path.join(from, entry), path.join(modules, pkg.name, entry), { recursive: true });
  }
  // The raw-undici program's provider, installed like a package so its __provider is a one-line require too.
  fs.cpSync(path.join(programs, "raw-undici", "raw-provider"), path.join(modules, "psu-bench-raw"), {
    recursive: true,
  });
  return { dir, program: (p) => path.join(dir, "programs", p) };
}
