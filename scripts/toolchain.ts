/**
 * The tools a user's machine has, made here from caches outside the clone: the pinned `pulumi`
 * CLI (tools/pulumi-cli), Node.js versions and package managers (tools/toolchain), and the
 * language host stand-in (tools/language-host). `userPath()` is the PATH a user's shell would
 * have: the CLI's directory with its plugins, then one Node.js, then the rest.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { isRealNodeHost, pulumiOnPath, runScript, standInHostMark, supportedPulumi, which } from "../server/binaries";

export const repoRoot: string = (() => {
  for (let dir = __dirname; dir !== path.dirname(dir); dir = path.dirname(dir)) {
    const pkg = path.join(dir, "package.json");
    if (
      fs.existsSync(pkg) &&
      (JSON.parse(fs.readFileSync(pkg, "utf8")) as { name?: string }).name === "pulumi-storage-user"
    )
      return dir;
  }
  throw new Error(`pulumi-storage-user root not found above ${__dirname}`);
})();

/** The package's version, as package.json gives it. */
export const packageVersion: string = (
  JSON.parse(fs.readFileSync(path.join(repoRoot, "package.json"), "utf8")) as { version: string }
).version;

export const cacheDir =
  process.env.PULUMI_CLI_CACHE ||
  path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), ".cache"), "pulumi-storage-user");

/** tools/toolchain/versions.json: `cli` is the pinned Pulumi CLI, `cliNewest` the newest the Go module proxy serves, `pythonPulumi` the Python SDK (tools/toolchain/python.sh). */
export const pins: {
  cli: string;
  cliNewest: string;
  node: string[];
  mainNode: string;
  pnpm: string;
  yarn: string;
  typescriptNewest: string;
  sdkNewest: string;
  pythonPulumi: string;
} = JSON.parse(fs.readFileSync(path.join(repoRoot, "tools", "toolchain", "versions.json"), "utf8")) as typeof pins;

/**
 * Throws in the unit tier (test/support/unit-setup.ts): its tests need no CLI, no installed package and
 * no toolchain, and must not reach one by accident.
 */
export function refuseInUnitTier(what: string): void {
  if (process.env.PULUMI_STORAGE_USER_UNIT_TIER) {
    throw new Error(
      `${what}: the unit tier (npm run test:unit) runs no Pulumi CLI, real server or install; this test belongs in the full suite (vitest.config.mts)`,
    );
  }
}

/** Installs the pinned Node.js versions, pnpm and yarn into the cache (a no-op when warm). */
export function installToolchain(onlyNode?: string): void {
  refuseInUnitTier("installing the toolchain");
  execFileSync(
    "bash",
    [path.join(repoRoot, "tools", "toolchain", "install.sh"), ...(onlyNode ? ["--node", onlyNode] : [])],
    { stdio: ["ignore", "inherit", "inherit"] },
  );
}

/** Directory holding `node` of that version; a major ("22") picks the pinned release. */
export function nodeBinDir(version: string = pins.mainNode): string {
  const full = pins.node.find((v) => v === version || v.split(".")[0] === version);
  if (!full) throw new Error(`node ${version} is not pinned in tools/toolchain/versions.json`);
  const dir = path.join(cacheDir, "node", `v${full}`, "bin");
  if (!fs.existsSync(path.join(dir, "node"))) installToolchain(full);
  return dir;
}

export function packageManagerBinDir(pm: "pnpm" | "yarn"): string {
  const dir = path.join(cacheDir, `${pm}-${pins[pm]}`, "node_modules", ".bin");
  if (!fs.existsSync(path.join(dir, pm))) installToolchain();
  return dir;
}

/** `tsc` of the newest TypeScript the npm registry served when last pinned (`npm view typescript version`), installed into the cache. */
export function newestTsc(): string {
  const tsc = path.join(cacheDir, `typescript-${pins.typescriptNewest}`, "node_modules", "typescript", "bin", "tsc");
  if (!fs.existsSync(tsc)) installToolchain();
  return tsc;
}

function writeAtomically(file: string, write: (tmp: string) => void, mode?: number) {
  const tmp = `${file}.tmp${process.pid}`;
  write(tmp);
  if (mode !== undefined) fs.chmodSync(tmp, mode);
  fs.renameSync(tmp, file);
}

const cliDirs = new Map<string, string>();

/** The directory of a CLI version as tools/pulumi-cli/build.sh builds it: `pulumi` alone, no language host beside it. */
export function builtCli(version: string): string {
  return execFileSync("bash", [path.join(repoRoot, "tools", "pulumi-cli", "build.sh"), version], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  })
    .trim()
    .split("\n")
    .pop()!;
}

/**
 * A directory laid out like a Pulumi install: `pulumi` (a hard link to the cached build),
 * `pulumi-resource-pulumi-nodejs` from @pulumi/pulumi, and `pulumi-language-nodejs`, this repo's
 * host, unless a real one is already on PATH (then that one is used). With all three side by side
 * and on PATH, the CLI takes its plugins as bundled, as after the official installer. One
 * directory per checkout and CLI version, since the host script names its checkout.
 *
 * With no version: the CLI this process was given (PULUMI_STORAGE_USER_CLI_DIR, set by the test
 * setup for each test project), else the pinned one.
 */
export function locateCli(version?: string): string {
  refuseInUnitTier("locating the Pulumi CLI");
  if (!version && process.env.PULUMI_STORAGE_USER_CLI_DIR) return process.env.PULUMI_STORAGE_USER_CLI_DIR;
  const wanted = version ?? pins.cli;
  const known = cliDirs.get(wanted);
  if (known) return known;
  const built = builtCli(wanted);
  const checkout = createHash("sha256").update(repoRoot).digest("hex").slice(0, 12);
  const dir = path.join(cacheDir, "bin", wanted === pins.cli ? checkout : `${checkout}-${wanted}`);
  layOutInstall(dir, path.join(built, "pulumi"), process.env.PATH ?? "");
  cliDirs.set(wanted, dir);
  return dir;
}

/**
 * Fills `dir` as above from the `pulumi` binary at `cli`; `searchPath` is where a real host is looked
 * for. `symlink`: `pulumi` links to a user's own CLI instead (never copied, whatever its filesystem).
 */
export function layOutInstall(dir: string, cli: string, searchPath: string, symlink = false): void {
  fs.mkdirSync(dir, { recursive: true });
  const linked = path.join(dir, "pulumi");
  const there = fs.lstatSync(linked, { throwIfNoEntry: false });
  const same = symlink
    ? there?.isSymbolicLink() && fs.readlinkSync(linked) === cli
    : there && !there.isSymbolicLink() && fs.statSync(linked).ino === fs.statSync(cli).ino;
  if (!same) {
    writeAtomically(linked, (tmp) => {
      if (symlink) return fs.symlinkSync(cli, tmp);
      try {
        fs.linkSync(cli, tmp);
      } catch {
        fs.copyFileSync(cli, tmp);
      }
    });
  }
  const sdk = path.dirname(require.resolve("@pulumi/pulumi/package.json", { paths: [repoRoot] }));
  writeAtomically(
    path.join(dir, "pulumi-resource-pulumi-nodejs"),
    (tmp) => fs.copyFileSync(path.join(sdk, "pulumi-resource-pulumi-nodejs"), tmp),
    0o755,
  );
  const host = path.join(dir, "pulumi-language-nodejs");
  const realHost = which("pulumi-language-nodejs", searchPath);
  if (isRealNodeHost(realHost) && path.dirname(realHost) !== dir) {
    fs.rmSync(host, { force: true });
  } else {
    const main = path.join(repoRoot, "dist", "tools", "language-host", "main.js");
    writeAtomically(host, (tmp) => fs.writeFileSync(tmp, hostShim(main)), 0o755);
  }
}

/**
 * The stand-in host's executable. The real one is a Go binary, which the user's NODE_OPTIONS
 * does not touch (a `--require` that prints would break the port handshake on stdout): it is
 * moved aside for the host's own Node process, and main.ts puts it back for what the host runs.
 */
function hostShim(main: string): string {
  return [
    "#!/bin/sh",
    `${standInHostMark} (tools/language-host), for ${repoRoot}`,
    'if [ -n "${NODE_OPTIONS+set}" ]; then',
    "  PULUMI_STORAGE_USER_HOST_NODE_OPTIONS=$NODE_OPTIONS; export PULUMI_STORAGE_USER_HOST_NODE_OPTIONS; unset NODE_OPTIONS",
    "else",
    "  unset PULUMI_STORAGE_USER_HOST_NODE_OPTIONS",
    "fi",
    `exec node ${JSON.stringify(main)} "$@"`,
    "",
  ].join("\n");
}

/** PATH as a user's shell has it: the Pulumi install, one Node.js, then the rest. */
export function userPath(
  nodeVersion: string = pins.mainNode,
  extra: string[] = [],
  cliDir: string = locateCli(),
): string {
  return [cliDir, nodeBinDir(nodeVersion), ...extra, process.env.PATH ?? ""].join(path.delimiter);
}

export function cliVersion(): string {
  return execFileSync(path.join(locateCli(), "pulumi"), ["version"], { encoding: "utf8" }).trim();
}

/** The real servers of the local API locate themselves (server/binaries.ts); re-exported for the scripts and tests. */
export { realServerBinaries } from "../server/binaries";

/**
 * The Pulumi install the main job (`npm run demo`) runs, and a line saying which: a supported
 * `pulumi` on PATH as it is, when Pulumi's Node.js host is beside it, else that `pulumi` (linked)
 * with the stand-in host; the pinned CLI, built from Go sources, only when PATH has none. Without
 * either: exit, the build script having said what to install.
 */
export async function mainJobCli(): Promise<{ dir: string; says: string }> {
  const found = pulumiOnPath();
  const hostSays = (dir: string) => {
    const host = which("pulumi-language-nodejs", [dir, process.env.PATH].join(path.delimiter));
    return isRealNodeHost(host) ? `Node.js host ${host}` : "Node.js host: the repo's stand-in (tools/language-host)";
  };
  if (found?.supported && found.nodeHost) {
    const dir = path.dirname(found.cli);
    return { dir, says: `pulumi ${found.version} from PATH (${found.cli}), ${hostSays(dir)}` };
  }
  if (found?.supported) {
    const checkout = createHash("sha256").update(repoRoot).digest("hex").slice(0, 12);
    const dir = path.join(cacheDir, "bin", `${checkout}-path`);
    layOutInstall(dir, found.cli, process.env.PATH ?? "", true);
    return { dir, says: `pulumi ${found.version} from PATH (${found.cli}), ${hostSays(dir)}` };
  }
  const why = found ? `${found.version} at ${found.cli} is not ${supportedPulumi.range}` : "none on PATH";
  const built = await runScript(path.join(repoRoot, "tools", "pulumi-cli", "build.sh")).catch(() => process.exit(1));
  const dir = locateCli(pins.cli);
  return { dir, says: `pulumi ${pins.cli} built from Go sources in ${built.trim()} (${why}), ${hostSays(dir)}` };
}
