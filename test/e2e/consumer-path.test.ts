// examples/README.md "From clone to app config", executed as written: the shell block is read from
// the README and run by bash in a fresh copy of the repository's tracked files, with plain `pulumi`,
// `node` and `npm` on PATH, as a user's terminal has them; only the environment is the test's (an
// empty PULUMI_HOME, no storage settings of the developer's). It installs the examples from the
// tarball `npm pack` writes, starts `npm run api` in real mode, and its `kill %1` must stop it all.
import { spawn, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as net from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, expect, test } from "vitest";
import { locateCli, repoRoot } from "../../scripts/stack";
import { nodeBinDir } from "../../scripts/toolchain";

const readme = fs.readFileSync(path.join(repoRoot, "examples", "README.md"), "utf8");
const block = /```sh\n([\s\S]*?)```/.exec(readme.slice(readme.indexOf("## From clone to app config")))![1];
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "psu-consumer-path-"));
let group: number | undefined;
afterAll(() => {
  try {
    if (group) process.kill(-group, "SIGTERM"); // the API, if the block stopped before its `kill %1`
  } catch {
    // already gone
  }
  fs.rmSync(tmp, { recursive: true, force: true });
});
const portTaken = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = net.connect(port, "127.0.0.1", () => (socket.destroy(), resolve(true)));
    socket.on("error", () => resolve(false));
  });
/** Whether something still listens on any of `ports` after up to `tries` × 100 ms. */
async function stillListening(ports: number[], tries: number) {
  for (let i = 0; i < tries; i++) {
    if (!(await Promise.all(ports.map(portTaken))).some(Boolean)) return false;
    await new Promise((r) => setTimeout(r, 100));
  }
  return true;
}

test("the block runs as written: users stack, app-config stack, a 0600 env file with the user's credentials; `kill %1` stops the API and its servers", async () => {
  expect(block).toContain("npm pack");
  // The block starts the local API on a fixed port, as a user would.
  expect(await portTaken(8080), "port 8080 is taken: the block's local API could not start").toBe(false);
  // The tracked files as they are in the working tree: what a clone of this commit holds.
  const clone = path.join(tmp, "pulumi-storage-user");
  for (const f of spawnSync("git", ["ls-files", "-z"], { cwd: repoRoot, encoding: "utf8" }).stdout.split("\0")) {
    if (!f || !fs.existsSync(path.join(repoRoot, f))) continue; // deleted, not yet committed
    fs.mkdirSync(path.dirname(path.join(clone, f)), { recursive: true });
    fs.copyFileSync(path.join(repoRoot, f), path.join(clone, f));
  }
  const env: NodeJS.ProcessEnv = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !/^(STORAGE_|PULUMI_)/.test(k)),
  );
  Object.assign(env, {
    PATH: [locateCli(), nodeBinDir(), process.env.PATH].join(path.delimiter),
    PULUMI_HOME: path.join(tmp, "pulumi-home"),
    PULUMI_SKIP_UPDATE_CHECK: "true",
    NO_COLOR: "1",
    npm_config_loglevel: "error",
    npm_config_prefer_offline: "true",
  });
  // -e: the first failing command ends it, as it would stop a user reading the output.
  const child = spawn("bash", ["-e", "-c", block], { cwd: clone, env, detached: true });
  group = child.pid;
  let output = "";
  child.stdout.on("data", (c) => (output += c));
  child.stderr.on("data", (c) => (output += c));
  // "exit", not "close": a server left running would hold the pipes open.
  const code = await new Promise<number>((resolve) => child.on("exit", (c) => resolve(c ?? 1)));
  // Real mode's S3 and FTP servers: `kill %1` is a SIGTERM, which stops them with the API.
  const [, s3Port, ftpPort] =
    /users are created on S3 http:\/\/127\.0\.0\.1:(\d+) \(versitygw\) and FTP 127\.0\.0\.1:(\d+)/.exec(output) ?? [];
  expect(code, output).toBe(0);
  expect(output).toMatch(/storage API listening on http:\/\/127\.0\.0\.1:8080/);
  expect(s3Port, "the API did not start in real mode").toBeDefined();
  expect(await stillListening([8080], 30), "the block's `kill %1` left the local API running").toBe(false);
  expect(
    await stillListening([Number(s3Port), Number(ftpPort)], 100),
    "`kill %1` left real mode's S3 or FTP server running",
  ).toBe(false);
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
});
