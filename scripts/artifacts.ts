/**
 * `npm run artifacts -- --out <dir>`: a release's artifacts for the version in package.json, each
 * made by the tool made for it, from a copy of the tracked files, so the clone is left as it was
 * (pip builds inside its source folder, npm pack rewrites package.json for a moment). Then each is
 * installed from <dir> alone in a temp folder and used (docs/development.md "Releases").
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { parseArgs } from "node:util";
import { startApiServer } from "../server/api-server";
import { randomSecret } from "../server/tokens";
import { TestStack } from "./stack";
import { cacheDir, packageVersion as version, repoRoot } from "./toolchain";

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

const { values } = parseArgs({ options: { out: { type: "string" } } });
if (!values.out) {
  console.error("usage: npm run artifacts -- --out <dir>   (an empty or new folder)");
  process.exit(2);
}
const out = path.resolve(values.out);
if (fs.existsSync(out) && fs.readdirSync(out).length > 0) {
  console.error(`${out} is not empty: give a new folder, so nothing of another build is taken for this one`);
  process.exit(2);
}
fs.mkdirSync(out, { recursive: true });
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "psu-artifacts-"));
const src = path.join(tmp, "src");
const modulePath = /^module (\S+)/m.exec(fs.readFileSync(path.join(repoRoot, "sdk/go/go.mod"), "utf8"))![1];
const tarball = path.join(out, `pulumi-storage-user-${version}.tgz`);
let last = Date.now();
const step = (what: string) => {
  console.log(`${what} (${((Date.now() - last) / 1000).toFixed(1)} s)`);
  last = Date.now();
};

function make(): void {
  for (const file of run("git", ["ls-files", "-z"]).split("\0").filter(Boolean)) {
    if (!fs.existsSync(path.join(repoRoot, file))) continue; // deleted in the working tree
    fs.mkdirSync(path.dirname(path.join(src, file)), { recursive: true });
    fs.cpSync(path.join(repoRoot, file), path.join(src, file), { verbatimSymlinks: true });
  }
  fs.symlinkSync(path.join(repoRoot, "node_modules"), path.join(src, "node_modules")); // prepack's tsc
  run("npm", ["pack", "--silent", "--pack-destination", out], src);
  step(`npm pack: ${path.basename(tarball)}`);
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
    `v${version}`,
    time,
    path.join(out, "go"),
  ]);
  step(`Go module ${modulePath} v${version}`);
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
  run("npm", ["publish", "--dry-run", "--silent", tarball], tmp);
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
    `pulumi_storage_user==${version}`,
  ]);
  const program = path.join(tmp, "check.py");
  fs.writeFileSync(
    program,
    [
      "import importlib.metadata, pulumi_storage_user as su",
      `assert importlib.metadata.version("pulumi_storage_user") == "${version}"`,
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
  const goVersion = /^go (\S+)/m.exec(fs.readFileSync(path.join(repoRoot, "sdk/go/go.mod"), "utf8"))![1];
  fs.writeFileSync(
    path.join(dir, "go.mod"),
    `module artifactscheck\n\ngo ${goVersion}\n\nrequire ${modulePath} v${version}\n`,
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

async function main(): Promise<void> {
  const started = Date.now();
  console.log(
    `pulumi-storage-user ${version}: making the artifacts in ${out} (cold: minutes, then cached in ${cacheDir})`,
  );
  try {
    make();
    checkPython();
    checkGo();
    await checkNpm();
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
