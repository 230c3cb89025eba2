/**
 * The plugin as one native executable, `pulumi-resource-storage-user`, with Node.js inside: esbuild bundles
 * dist/scripts/plugin-entry.js (the plugin, provider/plugin/server.ts) with its dependencies into one script, and Node's single-executable
 * application support (SEA) puts that script into a copy of the `node` binary (docs/decisions.md "The plugin
 * binary"). Then the archive the engine downloads, `pulumi-resource-storage-user-v<version>-<os>-<arch>.tar.gz`.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as esbuild from "esbuild";

export const pluginName = "storage-user";
export const binaryName = `pulumi-resource-${pluginName}`;
export const archiveName = (version: string, platform = "linux-amd64") =>
  `${binaryName}-v${version}-${platform}.tar.gz`;

// Every `require` and `require.resolve` of the bundle goes through scripts/plugin-modules.ts's list once it is loaded
// (the bundle's first module): an executable has no node_modules, and a SEA's own `require` loads built-in modules only.
const banner = `require = ((builtin) => {
  const bundle = () => globalThis.__storageUserBundle;
  return Object.assign((id) => (bundle() ? bundle().require(id) : builtin(id)), {
    resolve: (id, options) => (bundle() ? bundle().resolve(id, options) : builtin.resolve(id, options)),
  });
})(require);`;

export type BinaryBuild = {
  /** The executable. */
  binary: string;
  /** The bundled script inside it, kept for the start-up measurement against `node <bundle>`. */
  bundle: string;
  bundleBytes: number;
  binaryBytes: number;
  ms: { bundle: number; sea: number };
};

/**
 * Bundles and makes the executable in `workDir`. `dist` is a build of the tree (tsc -p tsconfig.json's output), `schema` the schema
 * the plugin serves, made here from the build (its descriptions are read from declaration files at start-up, which a
 * bundle has not) with the release's pluginDownloadURL. `node` is the Node.js whose binary is copied.
 */
export async function buildBinary(opts: {
  dist: string;
  schema: object;
  node: string;
  workDir: string;
}): Promise<BinaryBuild> {
  const { dist, schema, node, workDir } = opts;
  fs.mkdirSync(workDir, { recursive: true });
  const bundle = path.join(workDir, "plugin.js");
  let started = Date.now();
  const schemaFile = path.join(dist, "provider/plugin/schema.js");
  const { typeToken } = (await import(schemaFile)) as { typeToken: string };
  await esbuild.build({
    entryPoints: [path.join(dist, "scripts/plugin-entry.js")],
    outfile: bundle,
    bundle: true,
    platform: "node",
    format: "cjs",
    target: `node${/v(\d+)/.exec(execFileSync(node, ["--version"], { encoding: "utf8" }))![1]}`,
    banner: { js: banner },
    // The SDK loads TypeScript only to serialize a function or compile a program, which a provider never does; out of
    // the bundle, it is 9 of its 17 MB. Were it reached, it would fail as not found (scripts/plugin-modules.ts).
    external: ["typescript"],
    logLevel: "error",
    plugins: [
      {
        name: "schema-at-build-time",
        setup(build) {
          build.onLoad({ filter: /[\\/]provider[\\/]plugin[\\/]schema\.js$/ }, (args) =>
            args.path === schemaFile
              ? {
                  contents: `exports.schema = ${JSON.stringify(schema)};\nexports.typeToken = ${JSON.stringify(typeToken)};\n`,
                }
              : undefined,
          );
        },
      },
    ],
  });
  const bundleMs = Date.now() - started;
  started = Date.now();
  const binary = path.join(workDir, binaryName);
  // Node's release binary carries its debug symbols: 150 of 157 MB at 26.10.0, 124 MB stripped (43 MB gzipped).
  const stripped = path.join(workDir, "node");
  fs.copyFileSync(node, stripped);
  execFileSync("strip", [stripped]);
  const config = path.join(workDir, "sea-config.json");
  fs.writeFileSync(
    config,
    JSON.stringify({
      main: bundle,
      executable: stripped,
      output: binary,
      disableExperimentalSEAWarning: true,
      // V8's compiled code goes in with the script: start-up skips most of the parse (bench/README.md).
      useCodeCache: true,
    }),
  );
  execFileSync(node, ["--build-sea", config], { cwd: workDir, stdio: ["ignore", "pipe", "pipe"] });
  fs.chmodSync(binary, 0o755);
  return {
    binary,
    bundle,
    bundleBytes: fs.statSync(bundle).size,
    binaryBytes: fs.statSync(binary).size,
    ms: { bundle: bundleMs, sea: Date.now() - started },
  };
}

/** The archive the engine downloads: a gzipped tar with the executable alone at its top, dated `time` (the commit's). */
export function archive(binary: string, out: string, time: Date): void {
  const stage = fs.mkdtempSync(path.join(os.tmpdir(), "psu-archive-"));
  try {
    fs.copyFileSync(binary, path.join(stage, binaryName));
    fs.chmodSync(path.join(stage, binaryName), 0o755);
    fs.utimesSync(path.join(stage, binaryName), time, time);
    const tar = execFileSync(
      "tar",
      ["--owner=0", "--group=0", "--numeric-owner", "--format=gnu", "-cf", "-", "-C", stage, binaryName],
      { maxBuffer: 1 << 30 },
    );
    fs.writeFileSync(out, execFileSync("gzip", ["-n", "-c"], { input: tar, maxBuffer: 1 << 30 }));
  } finally {
    fs.rmSync(stage, { recursive: true, force: true });
  }
}

/**
 * The Node.js whose binary the executable is: 26, the first pinned major whose `node --build-sea` makes it in one step
 * (Node 24 needs `postject` beside it), an LTS line since October 2026 (docs/decisions.md "The plugin binary").
 */
export const seaNode = "26";

/**
 * A PATH on which no `node` can be found: `dirs`, then a folder of links to the few system tools a shell needs (the
 * system's own /usr/bin holds a `node`). Throws if a `node` is found on it all the same.
 */
export function pathWithoutNode(dirs: string[]): string {
  const tools = fs.mkdtempSync(path.join(os.tmpdir(), "psu-nonode-"));
  for (const tool of ["sh", "bash", "env", "cat", "ls", "uname", "tar", "gzip", "mkdir", "rm", "mv"])
    for (const dir of ["/usr/bin", "/bin"])
      if (fs.existsSync(path.join(dir, tool)) && !fs.existsSync(path.join(tools, tool))) {
        fs.symlinkSync(path.join(dir, tool), path.join(tools, tool));
      }
  const searchPath = [...dirs, tools].join(path.delimiter);
  for (const dir of searchPath.split(path.delimiter))
    if (fs.existsSync(path.join(dir, "node")) || fs.existsSync(path.join(dir, "nodejs")))
      throw new Error(`${dir} holds a node: not a PATH without Node.js`);
  return searchPath;
}
