// The README's main job as it runs on a user's machine (`npm run demo` after its build): nothing installed
// outside the project's cache, Swift made up unless asked for, and the user's own `pulumi` run, none built.
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { expect, test } from "vitest";
import { builtCli, pins, repoRoot } from "../../scripts/toolchain";
import { run } from "../support/cli-project";

test("the demo calls no apt-get, apt, dpkg or sudo, says Swift is made up, and runs the pulumi on PATH", async () => {
  const bin = fs.mkdtempSync(path.join(os.tmpdir(), "psu-demo-"));
  const calls = path.join(bin, "calls.log");
  for (const name of ["apt-get", "apt", "dpkg", "sudo"])
    fs.writeFileSync(path.join(bin, name), `#!/bin/sh\necho "${name} $*" >> ${calls}\nexit 100\n`, { mode: 0o755 });
  // A user's install of a supported version: `pulumi` alone, no Node.js host beside it.
  fs.symlinkSync(path.join(builtCli(pins.cli), "pulumi"), path.join(bin, "pulumi"));
  const env: NodeJS.ProcessEnv = { ...process.env, PATH: `${bin}${path.delimiter}${process.env.PATH}` };
  delete env.PULUMI_STORAGE_USER_CLI_DIR; // the test project's CLI (test/support/cli-setup.ts)
  const { code, output } = await run(process.execPath, [path.join(repoRoot, "dist", "scripts", "demo.js")], { env });
  const called = fs.existsSync(calls) && fs.readFileSync(calls, "utf8");
  fs.rmSync(bin, { recursive: true, force: true });
  expect([code, called], output).toStrictEqual([0, false]);
  expect(output).toContain(`pulumi ${pins.cli} from PATH (${bin}/pulumi), Node.js host: the repo's stand-in`);
  expect(output).not.toMatch(/building pulumi|built from Go sources/);
  expect(output.match(/^swift: .*$/gm)).toStrictEqual([
    expect.stringMatching(/^swift: made up .*npm run demo -- --swift/),
  ]);
  expect(output).toMatch(/Swift skipped: no Keystone v3 login/);
  expect(output).toMatch(/the app wrote and read its file/);
});

test("npm run api with no Go to build S3 and FTP says so in one line, and runs in fake mode", async () => {
  const cache = fs.mkdtempSync(path.join(os.tmpdir(), "psu-no-go-"));
  const PATH = process.env.PATH!.split(path.delimiter).filter((d) => !fs.existsSync(path.join(d, "go")));
  const api = spawn(process.execPath, [path.join(repoRoot, "dist", "server", "main.js")], {
    env: { ...process.env, PATH: PATH.join(path.delimiter), PULUMI_CLI_CACHE: cache },
  });
  const out = { stdout: "", stderr: "" };
  await new Promise((started) => {
    for (const s of ["stdout", "stderr"] as const)
      api[s].on("data", (c: Buffer) => (out[s] += c.toString()).includes("generated token") && started(s));
    api.once("exit", started);
  });
  api.kill();
  fs.rmSync(cache, { recursive: true, force: true });
  expect(out.stderr).toMatch(/^real-servers: no Go on PATH to build versitygw [^\n]*\n$/);
  expect(out.stdout).toContain("\nfake mode: the credentials issued work on no server\n");
});
