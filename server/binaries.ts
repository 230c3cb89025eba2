/**
 * Where the real servers come from: S3 and FTP are built into the cache outside the clone by
 * tools/real-servers/build.sh (Go module proxy), Swift and Keystone are installed from Debian's
 * packages by tools/real-servers/swift.sh. The servers locate themselves here, so nothing under
 * server/ reaches back into the scripts that drive it.
 */
import { execFile, execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";

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

/** Installs Swift and Keystone where it can (root and apt-get); a no-op when they are there. */
export function installSwift(): void {
  execFileSync("bash", [path.join(tools, "swift.sh")], { stdio: ["ignore", "inherit", "inherit"] });
}

/** Runs a script with its progress on our stderr; resolves to its stdout. */
export function runScript(script: string, args: string[] = []): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      "bash",
      [script, ...args],
      { encoding: "utf8", maxBuffer: 1 << 20 },
      (err: Error | null, stdout) => (err ? reject(err) : resolve(stdout)),
    );
    child.stderr?.pipe(process.stderr);
  });
}

/**
 * Builds S3 and FTP and installs Swift side by side (a cold machine's first `npm run api` or
 * demo: Go builds on the CPU, apt on the network and disk). A no-op when warm.
 */
export async function prepareRealServers(): Promise<void> {
  await Promise.all([runScript(path.join(tools, "build.sh")), runScript(path.join(tools, "swift.sh"))]);
}
