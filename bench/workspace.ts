/**
 * The bench's own copy of the package: the packed package as users install it (scripts/consumer.ts,
 * the same install the tests use) copied into bench/work/<name>/programs/node_modules beside copies
 * of bench/programs, so a run measures one snapshot even when the shared install is replaced
 * meanwhile. @pulumi/pulumi and undici resolve from the repo's node_modules further up.
 * BENCH_PACKAGE names another package root to measure instead (e.g. an older commit's build);
 * `from` is the package of a second workspace (bench.ts BENCH_VS).
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { installConsumer } from "../scripts/consumer";
import { archive, archiveName, binaryName, buildBinary, pluginName, seaNode } from "../scripts/plugin-binary";
import { locateCli, nodeBinDir, repoRoot } from "../scripts/toolchain";

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

/**
 * The plugin as a release's users get it: the binary `npm run artifacts` ships (scripts/plugin-binary.ts), built from
 * the measured tree's dist/ (this checkout's, or BENCH_PACKAGE's if it is a built checkout), archived, and installed
 * with `pulumi plugin install resource storage-user <version> --file <archive>` into a PULUMI_HOME of the bench's own
 * in `dir`, which the YAML stacks share as a user's stacks share ~/.pulumi. `binary` is the installed executable.
 */
export async function installedPlugin(dir: string): Promise<{ home: string; binary: string; version: string }> {
  const root = process.env.BENCH_PACKAGE ?? repoRoot;
  const dist = path.join(root, "dist");
  if (!fs.existsSync(path.join(dist, "scripts", "plugin-entry.js")))
    throw new Error(`${dist} has no scripts/plugin-entry.js: the plugin binary is built from a checkout's whole build`);
  const { version } = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as { version: string };
  const { schema } = (await import(path.join(dist, "provider/plugin/schema.js"))) as { schema: object };
  const node = path.join(nodeBinDir(seaNode), "node");
  const built = await buildBinary({ dist, schema, node, workDir: path.join(dir, "binary") });
  const tgz = path.join(dir, archiveName(version));
  archive(built.binary, tgz, new Date());
  const home = path.join(dir, "pulumi-home");
  fs.rmSync(home, { recursive: true, force: true });
  execFileSync(
    path.join(locateCli(), "pulumi"),
    ["plugin", "install", "resource", pluginName, version, "--file", tgz],
    {
      env: { ...process.env, PULUMI_HOME: home, PULUMI_SKIP_UPDATE_CHECK: "true" },
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  const binary = path.join(home, "plugins", `resource-${pluginName}-v${version}`, binaryName);
  if (!fs.existsSync(binary)) throw new Error(`pulumi plugin install put no ${binary}`);
  return { home, binary, version };
}

/**
 * The release's YAML package declaration (docs/yaml.md), in the program's `sdks/`: the plugin's name and version,
 * no download URL, the plugin being installed.
 */
export function declarePlugin(programDir: string, version: string): void {
  fs.mkdirSync(path.join(programDir, "sdks"), { recursive: true });
  fs.writeFileSync(
    path.join(programDir, "sdks", `${pluginName}.yaml`),
    `packageDeclarationVersion: 1\nname: ${pluginName}\nversion: ${version}\n`,
  );
}
