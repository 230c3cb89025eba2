// examples/README.md "From clone to app config", executed as written: the shell block is read from
// the README (not copied here) and run by bash in a fresh copy of the repository's tracked files,
// with plain `pulumi`, `node` and `npm` on PATH, as a user's terminal has them. Only the
// environment is the test's: an empty PULUMI_HOME, no storage settings of the developer's.
import { spawn, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as net from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, expect, test } from "vitest";
import { locateCli, repoRoot } from "../../scripts/stack";
import { nodeBinDir } from "../../scripts/toolchain";

const readme = fs.readFileSync(path.join(repoRoot, "examples", "README.md"), "utf8");
const section = readme.slice(readme.indexOf("## From clone to app config"));
const block = /```sh\n([\s\S]*?)```/.exec(section)![1];
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "psu-consumer-path-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** The tracked files as they are in the working tree: what a clone of this commit holds. */
function freshCopy(dir: string) {
  const files = spawnSync("git", ["ls-files", "-z"], { cwd: repoRoot, encoding: "utf8" })
    .stdout.split("\0")
    .filter(Boolean);
  for (const f of files) {
    if (!fs.existsSync(path.join(repoRoot, f))) continue; // deleted, not yet committed
    fs.mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
    fs.copyFileSync(path.join(repoRoot, f), path.join(dir, f));
  }
}

const portTaken = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = net.connect(port, "127.0.0.1", () => (socket.destroy(), resolve(true)));
    socket.on("error", () => resolve(false));
  });
let group: number | undefined;
function killGroup(pid: number) {
  try {
    process.kill(-pid, "SIGTERM");
  } catch {
    // Already gone: nothing to stop.
  }
  group = undefined;
}
afterAll(() => group && killGroup(group));

test(
  "the block runs as written: users stack, app-config stack, a 0600 env file with the user's credentials",
  { timeout: 900_000 },
  async () => {
    expect(block).toContain("npm pack");
    // The block starts the local API on a fixed port, as a user would.
    expect(await portTaken(8080), "port 8080 is taken: the block's local API could not start").toBe(false);
    const clone = path.join(tmp, "pulumi-storage-user");
    freshCopy(clone);
    const env: NodeJS.ProcessEnv = { ...process.env };
    for (const k of Object.keys(env)) if (/^(STORAGE_|PULUMI_)/.test(k)) delete env[k];
    Object.assign(env, {
      PATH: [locateCli(), nodeBinDir(), process.env.PATH].join(path.delimiter),
      PULUMI_HOME: path.join(tmp, "pulumi-home"),
      PULUMI_SKIP_UPDATE_CHECK: "true",
      NO_COLOR: "1",
      npm_config_loglevel: "error",
      npm_config_prefer_offline: "true",
    });
    // -e: the first failing command ends it, as it would stop a user reading the output.
    const child = spawn("bash", ["-e", "-c", block], {
      cwd: clone,
      env,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    group = child.pid;
    let output = "";
    child.stdout.on("data", (c) => (output += c));
    child.stderr.on("data", (c) => (output += c));
    // "exit", not "close": a server left running would hold the pipes open.
    const code = await new Promise<number>((resolve) => child.on("exit", (c) => resolve(c ?? 1)));
    let apiLeft = true;
    for (let i = 0; i < 30 && apiLeft; i++) {
      apiLeft = await portTaken(8080);
      if (apiLeft) await new Promise((r) => setTimeout(r, 100));
    }
    // Real mode's S3 and FTP servers: `kill %1` is a SIGTERM, which stops them with the API. Looked
    // at before the group is killed below, which would stop them anyway.
    const [, s3Port, ftpPort] =
      /users are created on S3 http:\/\/127\.0\.0\.1:(\d+) \(versitygw\) and FTP 127\.0\.0\.1:(\d+)/.exec(output) ?? [];
    let serversLeft = s3Port !== undefined;
    for (let i = 0; i < 100 && serversLeft; i++) {
      serversLeft = (await portTaken(Number(s3Port))) || (await portTaken(Number(ftpPort)));
      if (serversLeft) await new Promise((r) => setTimeout(r, 100));
    }
    killGroup(child.pid!); // the API, if the block stopped before its `kill %1`
    expect(code, output).toBe(0);
    expect(apiLeft, "the block's `kill %1` left the local API running").toBe(false);
    expect(output).toMatch(/storage API listening on http:\/\/127\.0\.0\.1:8080/);
    expect(s3Port, "the API did not start in real mode").toBeDefined();
    expect(serversLeft, "the block's `kill %1` left real mode's S3 or FTP server running").toBe(false);
    const envFile = path.join(clone, "examples", "app-config", "app.env");
    expect(fs.statSync(envFile).mode & 0o777).toBe(0o600);
    const vars = Object.fromEntries(
      fs
        .readFileSync(envFile, "utf8")
        .trimEnd()
        .split("\n")
        .map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1).replace(/^'(.*)'$/, "$1")]),
    );
    // The file holds what the users stack exported for `app`, printed by its --show-secrets line.
    expect(vars.AWS_ACCESS_KEY_ID).toMatch(/\S/);
    expect(output).toContain(vars.AWS_SECRET_ACCESS_KEY);
    expect(output).toMatch(/"userName":\s*"app-[0-9a-f]{7}"/);
  },
);
