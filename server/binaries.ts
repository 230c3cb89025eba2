/**
 * Where the local API's parts come from: S3 and FTP are built into the cache outside the clone by
 * tools/real-servers/build.sh (Go module proxy); Swift and Keystone are Debian's packages, installed
 * by tools/real-servers/swift.sh only on the opt-in (`--swift`); the `pulumi` its users run is
 * theirs, on PATH. The servers locate themselves here, so nothing under server/ reaches back into
 * the scripts that drive it.
 */
import { execFile, execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { swiftMissing } from "./swift-backend";

const tools = (() => {
  for (let dir = __dirname; dir !== path.dirname(dir); dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, "tools", "real-servers", "build.sh")))
      return path.join(dir, "tools", "real-servers");
  }
  throw new Error(`tools/real-servers not found above ${__dirname}`);
})();

let built: { versitygw: string; ftp: string } | undefined;

/** The real S3 and FTP servers of the local API's real mode, built into the cache on first use. */
export function realServerBinaries(): { versitygw: string; ftp: string } {
  if (built) return built;
  const out = execFileSync("bash", [path.join(tools, "build.sh")], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  });
  const found = Object.fromEntries(
    out
      .trim()
      .split("\n")
      .map((l) => l.split(/=(.*)/s).slice(0, 2)),
  ) as Record<string, string | undefined>;
  if (!found.versitygw || !found.ftp) throw new Error(`tools/real-servers/build.sh printed no server paths:\n${out}`);
  return (built = { versitygw: found.versitygw, ftp: found.ftp });
}

/**
 * Runs a script with its progress on our stderr; resolves to its stdout. A failure rejects with
 * the exit code alone: the script has said why on stderr already (exit 3: no Go to build with).
 */
export function runScript(script: string, args: string[] = []): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile("bash", [script, ...args], { encoding: "utf8", maxBuffer: 1 << 20 }, (err, stdout) =>
      err
        ? reject(Object.assign(new Error(`${path.basename(script)} exited ${err.code}`), { code: err.code }))
        : resolve(stdout),
    );
    child.stderr?.pipe(process.stderr);
  });
}

/**
 * What `npm run api` and `npm run demo` start, made ready side by side (a cold machine: Go builds
 * on the CPU, apt on the network): S3 and FTP, built unless cached; Swift only when `swift` (the
 * opt-in), installed if missing. A missing part is one line on stderr and a fallback: no S3 and FTP
 * (no Go) is fake mode, no Swift made-up Swift credentials. `optIn` is the command that turns Swift on.
 */
export async function prepareRealServers(swift: boolean, optIn: string): Promise<{ real: boolean; swift: boolean }> {
  const ok = (p: Promise<unknown>) =>
    p.then(
      () => true,
      () => false,
    );
  const ready = await Promise.all([
    ok(runScript(path.join(tools, "build.sh"))),
    swift && (swiftMissing().length === 0 || ok(runScript(path.join(tools, "swift.sh"), ["--install"]))),
  ]);
  if (ready[0] && !swift)
    process.stderr.write(
      `swift: made up (the swift and OS_* credentials work nowhere; S3 and FTP are real); \`${optIn}\` runs real Keystone and Swift, first installing them with apt-get as root if missing (docs/real-servers.md)\n`,
    );
  return { real: ready[0], swift: ready[0] && ready[1] };
}

/** First on PATH, as a shell finds it. */
export function which(name: string, searchPath = process.env.PATH ?? ""): string | undefined {
  return searchPath
    .split(path.delimiter)
    .map((dir) => dir && path.join(dir, name))
    .find((p) => p && fs.statSync(p, { throwIfNoEntry: false })?.isFile());
}

/** The first line of the repo's stand-in language host (scripts/toolchain.ts hostShim): what tells it from Pulumi's. */
export const standInHostMark = "# pulumi-storage-user's language host";

/** A `pulumi-language-nodejs` there that is Pulumi's, not the repo's stand-in. */
export const isRealNodeHost = (file: string | undefined): file is string =>
  !!file && fs.existsSync(file) && !fs.readFileSync(file).subarray(0, 200).toString("latin1").includes(standInHostMark);

/** The Pulumi CLIs the main job runs: v3, from the pinned one (tested with the newest, tools/toolchain/versions.json) on. */
export const supportedPulumi = (() => {
  const pins = JSON.parse(fs.readFileSync(path.join(tools, "..", "toolchain", "versions.json"), "utf8")) as {
    cli: string;
  };
  const parts = (v: string) => /^v?(\d+)\.(\d+)\.(\d+)/.exec(v)?.slice(1).map(Number);
  const [, minor, patch] = parts(pins.cli)!;
  return {
    range: `${pins.cli} or a later v3`,
    test: (version: string) => {
      const v = parts(version);
      return !!v && v[0] === 3 && (v[1] > minor || (v[1] === minor && v[2] >= patch));
    },
  };
})();

/** The `pulumi` on PATH, its version, and Pulumi's Node.js host beside it, if any. */
export function pulumiOnPath(
  searchPath = process.env.PATH ?? "",
): { cli: string; version: string; supported: boolean; nodeHost?: string } | undefined {
  const cli = which("pulumi", searchPath);
  if (!cli) return undefined;
  let version = "of unknown version";
  try {
    const env = { ...process.env, PULUMI_SKIP_UPDATE_CHECK: "true" };
    version = execFileSync(cli, ["version"], { encoding: "utf8", env, timeout: 60_000 }).trim();
  } catch {
    // A `pulumi` that cannot say its version is not used.
  }
  const host = path.join(path.dirname(cli), "pulumi-language-nodejs");
  return {
    cli,
    version,
    supported: supportedPulumi.test(version),
    ...(isRealNodeHost(host) ? { nodeHost: host } : {}),
  };
}

/** One line: the `pulumi` a user's own commands run against this API. */
export function describePulumiOnPath(): string {
  const found = pulumiOnPath();
  const install = `install Pulumi ${supportedPulumi.range} (https://www.pulumi.com/docs/iac/download-install/)`;
  if (!found) return `pulumi: none on PATH; ${install} to run pulumi up against this API`;
  if (!found.supported) return `pulumi: ${found.version} at ${found.cli} is not supported here; ${install}`;
  return `pulumi: ${found.version} at ${found.cli}, ${found.nodeHost ? `with Pulumi's Node.js host beside it` : "but no pulumi-language-nodejs beside it: TypeScript programs need the one Pulumi's installer puts there"}`;
}
