/**
 * `npm run artifacts -- --out <dir> [--plugin-url <url>]`: the artifacts of the commit checked out, each made by the
 * tool made for it, from a copy of the tracked files, so the clone is left as it was (pip builds inside its source
 * folder, npm pack rewrites package.json for a moment). They carry the build's version (scripts/version.ts): the
 * release's on the commit that releases it, elsewhere a pre-release of the next version naming the commit, set in the
 * copy's package.json before anything is built, so the npm package, the plugin binary, the SDKs and the YAML
 * declaration all name it. Then each is
 * installed from <dir> alone in a temp folder and used, and SHA256SUMS is written last, naming only
 * what passed (docs/development.md "Releases"). `--plugin-url`: where the engine downloads the plugin
 * binary from, carried by the binary's schema, the Go and Python SDKs and the YAML package declaration;
 * without it the release carries none, and the plugin is installed with `pulumi plugin install --file`.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { parseArgs } from "node:util";
import { startApiServer } from "../server/api-server";
import { archive, archiveName, binaryName, buildBinary, pathWithoutNode, pluginName, seaNode } from "./plugin-binary";
import { yamlHostDir } from "./yaml-program";
import { randomSecret } from "../server/tokens";
import { TestStack } from "./stack";
import { builtCli, cacheDir, nodeBinDir, pins, repoRoot } from "./toolchain";
import { buildVersion } from "./version";

/** Runs a command quietly; its standard error is shown only when it fails. */
function run(cmd: string, args: string[], cwd = repoRoot, env: NodeJS.ProcessEnv = process.env): string {
  try {
    return execFileSync(cmd, args, { cwd, env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim();
  } catch (err) {
    const { stdout, stderr } = err as { stdout?: string; stderr?: string };
    throw new Error(`${cmd} ${args.join(" ")} failed in ${cwd}:\n${stdout ?? ""}${stderr ?? ""}`, { cause: err });
  }
}
const lastLine = (text: string) => text.split("\n").pop()!;

const { values } = parseArgs({ options: { out: { type: "string" }, "plugin-url": { type: "string" } } });
if (!values.out) {
  console.error("usage: npm run artifacts -- --out <dir> [--plugin-url <url>]   (an empty or new folder)");
  process.exit(2);
}
// The engine fetches <url>/pulumi-resource-storage-user-v<version>-<os>-<arch>.tar.gz with a plain GET.
const pluginUrl = values["plugin-url"];
if (pluginUrl !== undefined && !/^https?:\/\/[^/]/.test(pluginUrl)) {
  console.error(
    `--plugin-url ${pluginUrl}: give the http:// or https:// address of the folder that serves this release`,
  );
  process.exit(2);
}
const out = path.resolve(values.out);
if (fs.existsSync(out) && fs.readdirSync(out).length > 0) {
  console.error(`${out} is not empty: give a new folder, so nothing of another build is taken for this one`);
  process.exit(2);
}
fs.mkdirSync(out, { recursive: true });
const build = buildVersion();
const { semver: version, python: pyVersion, go: goVersion } = build;
// The plugin's version (archive, YAML declaration, SDKs' requests) leaves out the build metadata, as its schema does.
const pluginVersion = version.replace(/\+.*/, "");
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "psu-artifacts-"));
const src = path.join(tmp, "src");
const modulePath = /^module (\S+)/m.exec(fs.readFileSync(path.join(repoRoot, "sdk/go/go.mod"), "utf8"))![1];
const tarball = path.join(out, `pulumi-storage-user-${version}.tgz`);
let last = Date.now();
const step = (what: string) => {
  console.log(`${what} (${((Date.now() - last) / 1000).toFixed(1)} s)`);
  last = Date.now();
};

async function make(): Promise<void> {
  for (const file of run("git", ["ls-files", "-z"]).split("\0").filter(Boolean)) {
    if (!fs.existsSync(path.join(repoRoot, file))) continue; // deleted in the working tree
    fs.mkdirSync(path.dirname(path.join(src, file)), { recursive: true });
    fs.cpSync(path.join(repoRoot, file), path.join(src, file), { verbatimSymlinks: true });
  }
  fs.symlinkSync(path.join(repoRoot, "node_modules"), path.join(src, "node_modules")); // prepack's tsc
  const pkg = JSON.parse(fs.readFileSync(path.join(src, "package.json"), "utf8")) as { version: string };
  fs.writeFileSync(path.join(src, "package.json"), `${JSON.stringify({ ...pkg, version }, null, 2)}\n`);
  run("npm", ["pack", "--silent", "--pack-destination", out], src);
  step(`npm pack: ${path.basename(tarball)}`);
  // The whole tree built in the copy: the binary's entry is in scripts/, which the package's own build leaves out.
  run("npx", ["tsc", "-p", "tsconfig.json"], src);
  // The SDKs of this build, made from the schema the binary serves: its version, and the release's download URL.
  run("bash", ["tools/sdkgen/generate.sh", ...(pluginUrl ? ["--plugin-url", pluginUrl] : [])], src);
  // The generator spells the plugin's version in PEP 440; the package's own names the commit too (a local label).
  const pyproject = path.join(src, "sdk/python/pyproject.toml");
  const spelt = /^\s*version = "([^"]+)"/m.exec(fs.readFileSync(pyproject, "utf8"))![1];
  if (spelt !== pyVersion.replace(/\+.*/, ""))
    throw new Error(`the Python SDK's generator spells ${pluginVersion} ${spelt}, not as ${pyVersion}`);
  fs.writeFileSync(
    pyproject,
    fs.readFileSync(pyproject, "utf8").replace(`version = "${spelt}"`, `version = "${pyVersion}"`),
  );
  // The sdist first, then the wheel built from it, as `build` does by default: the sdist is proven
  // whole. The wheel's timestamps are the commit's, so the same commit gives the same wheel.
  const committed = new Date(run("git", ["log", "-1", "--format=%cI"]));
  const pypa = lastLine(run("bash", ["tools/toolchain/pypa-build.sh"]));
  const env = {
    ...process.env,
    PIP_NO_INDEX: "1",
    PIP_FIND_LINKS: path.join(pypa, "wheels"),
    SOURCE_DATE_EPOCH: String(committed.getTime() / 1000),
  };
  run(path.join(pypa, "venv/bin/python"), ["-m", "build", "--outdir", out, path.join(src, "sdk/python")], src, env);
  step("python -m build: sdist and wheel");
  const time = committed.toISOString().replace(/\.\d+Z$/, "Z");
  run(lastLine(run("bash", ["tools/modzip/build.sh"])), [
    path.join(src, "sdk/go"),
    goVersion,
    time,
    path.join(out, "go"),
  ]);
  step(`Go module ${modulePath} ${goVersion}`);
  // YAML's package declaration (a "package lock file" the YAML host finds in the project's folders): the plugin's
  // name, version and download URL, so a program needs no `plugins` block.
  fs.writeFileSync(
    path.join(out, `${pluginName}.yaml`),
    [
      "packageDeclarationVersion: 1",
      `name: ${pluginName}`,
      `version: ${pluginVersion}`,
      ...(pluginUrl ? [`downloadUrl: ${pluginUrl}`] : []),
      "",
    ].join("\n"),
  );
  await makeBinary(committed);
  fs.writeFileSync(path.join(out, "README.md"), releaseReadme());
}

/** The plugin as one executable with Node.js inside, and its archive (scripts/plugin-binary.ts). */
async function makeBinary(committed: Date): Promise<void> {
  // Made from the cached linux-x64 Node.js and started by checkBinary: a platform it cannot start on is never shipped.
  if (process.platform !== "linux" || process.arch !== "x64")
    throw new Error(
      `the plugin binary is made and proven on linux-amd64 only, not ${process.platform}-${process.arch}`,
    );
  const { schema } = (await import(path.join(src, "dist/provider/plugin/schema.js"))) as { schema: object };
  const built = await buildBinary({
    dist: path.join(src, "dist"),
    schema: pluginUrl ? { ...schema, pluginDownloadURL: pluginUrl } : schema,
    node: path.join(nodeBinDir(seaNode), "node"),
    workDir: path.join(tmp, "binary"),
  });
  archive(built.binary, path.join(out, archiveName(pluginVersion)), committed);
  step(
    `plugin binary: ${(built.binaryBytes / 1e6).toFixed(1)} MB (bundle ${(built.bundleBytes / 1e6).toFixed(1)} MB, ${built.ms.bundle} ms; SEA ${built.ms.sea} ms), ${archiveName(pluginVersion)}`,
  );
}

/** SHA256SUMS: each file of the folder, written once every check passed. */
function writeSums(): void {
  const files = (fs.readdirSync(out, { recursive: true }) as string[]).filter((f) =>
    fs.statSync(path.join(out, f)).isFile(),
  );
  const sums = files.sort().map(
    (f) =>
      `${createHash("sha256")
        .update(fs.readFileSync(path.join(out, f)))
        .digest("hex")}  ${f}\n`,
  );
  fs.writeFileSync(path.join(out, "SHA256SUMS"), sums.join(""));
}

/** The tarball in a new npm project, next to @pulumi/pulumi, and a `pulumi preview` of a program on it against the local API. */
async function checkNpm(): Promise<void> {
  // npm publishes a pre-release only under a dist-tag other than `latest`.
  run("npm", ["publish", "--dry-run", "--silent", ...(build.release ? [] : ["--tag", "dev"]), tarball], tmp);
  const dir = path.join(tmp, "npm");
  fs.mkdirSync(dir);
  fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: "artifacts-check", private: true }));
  fs.writeFileSync(path.join(dir, "Pulumi.yaml"), "name: artifacts-check\nruntime: nodejs\nmain: index.js\n");
  fs.writeFileSync(
    path.join(dir, "index.js"),
    'const { StorageUser } = require("pulumi-storage-user");\nexports.userName = new StorageUser("app", { userName: "app-prod" }).userName;\n',
  );
  const pulumiSdk = (
    JSON.parse(fs.readFileSync(path.join(repoRoot, "package.json"), "utf8")) as {
      devDependencies: Record<string, string>;
    }
  ).devDependencies["@pulumi/pulumi"];
  run("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", tarball, `@pulumi/pulumi@${pulumiSdk}`], dir);
  const token = randomSecret();
  const api = await startApiServer({ token });
  const stack = await TestStack.create({
    programDir: dir,
    config: { "storage:baseUrl": api.url },
    secrets: { "storage:accessToken": token },
  });
  try {
    const preview = await stack.preview();
    if (preview.code !== 0 || !/\+ 2 to create/.test(preview.output))
      throw new Error(`pulumi preview on the tarball:\n${preview.output}`);
  } finally {
    await stack.dispose();
    await api.close();
  }
  step("npm: publish --dry-run, installed into a new project, pulumi preview against the local API");
}

/** The wheel in a new venv with `pulumi` from PyPI's wheels (tools/toolchain/python.sh), and a program that imports it. */
function checkPython(): void {
  const pulumiWheels = path.join(lastLine(run("bash", ["tools/toolchain/python.sh"])), "wheels");
  const venv = path.join(tmp, "venv");
  run("python3", ["-m", "venv", venv]);
  run(path.join(venv, "bin/pip"), [
    "install",
    "--quiet",
    "--no-index",
    "--find-links",
    out,
    "--find-links",
    pulumiWheels,
    `pulumi_storage_user==${pyVersion}`,
  ]);
  const program = path.join(tmp, "check.py");
  fs.writeFileSync(
    program,
    [
      "import importlib.metadata, pulumi_storage_user as su",
      `assert importlib.metadata.version("pulumi_storage_user") == "${pyVersion}"`,
      'assert su.StorageUserArgs(user_name="app-prod").user_name == "app-prod"',
      "",
    ].join("\n"),
  );
  run(path.join(venv, "bin/python"), ["-m", "py_compile", program]);
  run(path.join(venv, "bin/python"), [program]);
  step("Python: the wheel installed into a new venv, a program imports it");
}

/**
 * A Go program that requires the module at this version with the release folder as its proxy and
 * no replace. Its dependencies come from the machine's module cache (served as a proxy too, so
 * nothing is fetched); a module cache of its own, without this module, so no earlier copy is used.
 */
function checkGo(): void {
  const dir = path.join(tmp, "go");
  fs.mkdirSync(dir);
  const goDirective = /^go (\S+)/m.exec(fs.readFileSync(path.join(repoRoot, "sdk/go/go.mod"), "utf8"))![1];
  fs.writeFileSync(
    path.join(dir, "go.mod"),
    `module artifactscheck\n\ngo ${goDirective}\n\nrequire ${modulePath} ${goVersion}\n`,
  );
  fs.writeFileSync(
    path.join(dir, "main.go"),
    [
      "package main",
      'import (\n\t"github.com/pulumi/pulumi/sdk/v3/go/pulumi"',
      `\tstorageuser "${modulePath}/storageuser"\n)`,
      "func main() {",
      "\tpulumi.Run(func(ctx *pulumi.Context) error {",
      '\t\tu, err := storageuser.NewStorageUser(ctx, "app", &storageuser.StorageUserArgs{UserName: pulumi.StringPtr("app-prod")})',
      '\t\tif err == nil {\n\t\t\tctx.Export("userId", u.UserId)\n\t\t}',
      "\t\treturn err\n\t})\n}\n",
    ].join("\n"),
  );
  const machineCache = run("go", ["env", "GOMODCACHE"]);
  const modCache = path.join(cacheDir, "artifacts-gomodcache");
  for (const p of [modCache, path.join(modCache, "cache/download")].map((d) =>
    path.join(d, modulePath.split("/").slice(0, 2).join("/")),
  )) {
    if (fs.existsSync(p)) run("chmod", ["-R", "u+w", p]); // the module cache's files are read-only
    fs.rmSync(p, { recursive: true, force: true });
  }
  const env = {
    ...process.env,
    GOPROXY: `file://${path.join(out, "go")},file://${path.join(machineCache, "cache/download")}`,
    GOFLAGS: "-mod=mod",
    GOSUMDB: "off", // the release's module is in no checksum database; the rest was checked when cached
    GOMODCACHE: modCache,
    GOTOOLCHAIN: "local",
    GOWORK: "off",
  };
  run("go", ["build", "-o", path.join(tmp, "go-program"), "."], dir, env);
  step("Go: a program requiring the module from the release folder (GOPROXY=file://), no replace, builds");
}

/**
 * The archive holds the executable alone, an ELF file; `pulumi plugin install --file` installs it, and a YAML program
 * with no `plugins` block (the release's package declaration in its folder) previews against the local API, with no
 * Node.js on PATH.
 */
async function checkBinary(): Promise<void> {
  const archived = path.join(out, archiveName(pluginVersion));
  const listed = run("tar", ["-tzf", archived]);
  if (listed !== binaryName)
    throw new Error(`${archiveName(pluginVersion)} holds ${JSON.stringify(listed)}, not ${binaryName} alone`);
  const unpacked = path.join(tmp, "unpacked");
  fs.mkdirSync(unpacked);
  run("tar", ["-xzf", archived, "-C", unpacked]);
  const kind = run("file", ["-b", path.join(unpacked, binaryName)]);
  if (!/^ELF 64-bit LSB (pie )?executable, x86-64/.test(kind))
    throw new Error(`${binaryName} is not a native executable: ${kind}`);
  const dir = path.join(tmp, "yaml");
  fs.mkdirSync(path.join(dir, "sdks"), { recursive: true });
  fs.copyFileSync(path.join(out, `${pluginName}.yaml`), path.join(dir, "sdks", `${pluginName}.yaml`));
  fs.writeFileSync(
    path.join(dir, "Pulumi.yaml"),
    "name: artifacts-binary\nruntime: yaml\nresources:\n  app:\n    type: storage-user:index:StorageUser\n    properties:\n      userName: app-prod\n",
  );
  const PATH = pathWithoutNode([builtCli(pins.cli), yamlHostDir()]);
  const token = randomSecret();
  const api = await startApiServer({ token });
  const stack = await TestStack.create({
    programDir: dir,
    config: { "storage-user:baseUrl": api.url },
    secrets: { "storage-user:accessToken": token },
    env: { PATH },
  });
  try {
    await stack.must(["plugin", "install", "resource", pluginName, pluginVersion, "--file", archived]);
    const preview = await stack.preview();
    if (preview.code !== 0 || !/\+ 2 to create/.test(preview.output) || api.requests.length !== 0)
      throw new Error(`pulumi preview through the installed binary:\n${preview.output}`);
  } finally {
    await stack.dispose();
    await api.close();
  }
  step(
    `plugin binary: ${kind.split(",")[0]}, installed with plugin install --file, a YAML preview with no node on PATH`,
  );
}

/** The release folder's README.md: what each file is and how each team installs it. */
function releaseReadme(): string {
  const wheel = `pulumi_storage_user-${pyVersion}-py3-none-any.whl`;
  const plugin = pluginUrl
    ? `The engine downloads the plugin itself from ${pluginUrl} (the URL this release was made with, carried by the Go and Python SDKs and ${pluginName}.yaml), when a program first uses StorageUser. Offline, or from this folder:`
    : "This release was made without `--plugin-url`: it carries no download URL, so install the plugin from this folder on each machine that runs `pulumi` (or point `PULUMI_PLUGIN_DOWNLOAD_URL_OVERRIDES` at a server of this folder):";
  const dev = build.release
    ? ""
    : `A build of commit ${build.commit.slice(0, 12)}${build.dirty ? " with uncommitted changes" : ""}, not a release: a pre-release of the next version, whose packages name the commit. The plugin is ${pluginVersion}, without the commit: Pulumi's Python SDK asks for its plugin so.\n\n`;
  return `# pulumi-storage-user ${version}

${dev}| File | What it is |
|---|---|
| \`${archiveName(pluginVersion)}\` | The provider plugin for Go, Python and YAML programs: one executable, \`${binaryName}\`, with Node.js inside (linux-amd64; no Node.js needed on the machine). |
| \`${wheel}\`, \`pulumi_storage_user-${pyVersion}.tar.gz\` | The Python SDK (wheel and sdist), version ${pyVersion}. |
| \`go/\` | The Go SDK, \`${modulePath}\` ${goVersion}, laid out as a Go module proxy. |
| \`${pluginName}.yaml\` | Pulumi YAML's package declaration: name, version${pluginUrl ? " and download URL" : ""} of the plugin. |
| \`pulumi-storage-user-${version}.tgz\` | The npm package: TypeScript programs, the Automation API, and 0.6.0's \`plugins.providers\` route. |
| \`SHA256SUMS\` | The SHA-256 of each file, written after each was installed from this folder and used. |

## The plugin

${plugin}

\`\`\`sh
pulumi plugin install resource ${pluginName} ${pluginVersion} --file ${archiveName(pluginVersion)}
\`\`\`

## Python

\`\`\`sh
pip install --find-links <this folder> "pulumi_storage_user==${pyVersion}"   # or from your own package index
\`\`\`

## Go

A private release: the module is in no public proxy or checksum database.

\`\`\`sh
export GOPROXY=file://<this folder>/go,https://proxy.golang.org GONOSUMDB=${modulePath} GOFLAGS=-mod=mod
go get ${modulePath}@${goVersion}
\`\`\`

## YAML

Copy \`${pluginName}.yaml\` into the project's folder (e.g. \`sdks/${pluginName}.yaml\`); the program uses \`storage-user:index:StorageUser\` with no \`plugins\` block.

## TypeScript

\`\`\`sh
npm install ./pulumi-storage-user-${version}.tgz @pulumi/pulumi
\`\`\`

Each language's guide: docs/python.md, docs/go.md, docs/yaml.md and README.md of pulumi-storage-user ${version}.
`;
}

async function main(): Promise<void> {
  const started = Date.now();
  console.log(
    `pulumi-storage-user ${version}: making the artifacts in ${out} (cold: minutes, then cached in ${cacheDir})`,
  );
  try {
    await make();
    checkPython();
    checkGo();
    await checkNpm();
    await checkBinary();
    writeSums();
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  for (const line of fs.readFileSync(path.join(out, "SHA256SUMS"), "utf8").trim().split("\n")) {
    const file = line.slice(66);
    console.log(`  ${file}  ${fs.statSync(path.join(out, file)).size} bytes`);
  }
  console.log(
    `pulumi-storage-user ${version}: artifacts in ${out}, each installed from there alone (${Math.round((Date.now() - started) / 1000)} s)`,
  );
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
