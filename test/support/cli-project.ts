// What the end-to-end tests share. The newest CLI runs test/e2e/engine again for its engine paths
// (vitest.config.mts); a test that proves only this package's own logic, which no CLI version
// changes, runs on the pinned CLI alone: `test.skipIf(onNewestCli)`.
import { spawn, SpawnOptions, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { expect, inject } from "vitest";
import { installConsumer } from "../../scripts/consumer";
import { TestStack } from "../../scripts/stack";
import { pins, repoRoot } from "../../scripts/toolchain";
import { YamlUsers, yamlPath, yamlUsersProgram } from "../../scripts/yaml-program";

export const onNewestCli = inject("cliVersion") !== pins.cli;

/** A command's result, once it is known to have succeeded (its output in the failure message). */
export function ok<T extends { code: number | null; output: string }>(r: T): T {
  expect(r.code, r.output).toBe(0);
  return r;
}

/** A command's result, once it is known to have failed. */
export function failed<T extends { code: number | null; output: string }>(r: T): T {
  expect(r.code, r.output).not.toBe(0);
  return r;
}

/** Runs a command, its stdout and stderr in one string; asynchronously, so the API servers of the test process answer. */
export function run(command: string, args: string[], opts: SpawnOptions): Promise<{ code: number; output: string }> {
  const child = spawn(command, args, { ...opts, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout.on("data", (d) => (output += d));
  child.stderr.on("data", (d) => (output += d));
  return new Promise((resolve) => child.on("close", (code) => resolve({ code: code ?? -1, output })));
}

/** Environment under which the processes a command starts read the machine's clock `days` later: Debian's libfaketime
 * (.ci/run installs it) in every dynamically linked process; the Pulumi CLI, a Go program, keeps its own clock. */
export const FAKETIME_LIB = "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1";
export const daysLater = (days: number) => ({
  LD_PRELOAD: FAKETIME_LIB,
  FAKETIME: `+${days}d`,
  FAKETIME_DONT_FAKE_MONOTONIC: "1",
});

/** The ```sh blocks of a Markdown file of the repository, in order. */
export const shBlocks = (file: string) =>
  [...fs.readFileSync(path.join(repoRoot, file), "utf8").matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]);

/** The tarball the test run packed and installed for every program (scripts/consumer.ts). */
export function packedTarball(): string {
  const dir = installConsumer();
  return path.join(
    dir,
    fs.readdirSync(dir).find((f) => f.endsWith(".tgz"))!,
  );
}

/** Copies the files git tracks (with `untracked`, those it would track too) as the working tree has them: a clone of this commit. */
export function copyCheckout(to: string, untracked = false): void {
  const args = ["ls-files", "-z", ...(untracked ? ["--cached", "--others", "--exclude-standard"] : [])];
  for (const f of spawnSync("git", args, { cwd: repoRoot, encoding: "utf8" }).stdout.split("\0")) {
    if (!f || !fs.existsSync(path.join(repoRoot, f))) continue; // deleted, not yet committed
    fs.mkdirSync(path.dirname(path.join(to, f)), { recursive: true });
    fs.copyFileSync(path.join(repoRoot, f), path.join(to, f));
  }
}

/** test/programs/users (TypeScript) or the same users in YAML through the package's plugin (scripts/yaml-program.ts). */
export type Lang = "TypeScript" | "YAML";
export const userType = (lang: Lang) =>
  lang === "YAML" ? "storage-user:index:StorageUser" : "pulumi-nodejs:dynamic/storage:StorageUser";
/** A stack of `count` users `<prefix>-<i>`, auto-named or named so; its token as secret config, its API from STORAGE_API_URL. */
export function usersStack(lang: Lang, users: YamlUsers, token: string, env: Record<string, string>) {
  if (lang === "YAML") {
    const secrets = { "storage-user:accessToken": token };
    return TestStack.create({ programDir: yamlUsersProgram(users), secrets, env: { ...env, PATH: yamlPath() } });
  }
  const config = {
    "users:prefix": users.prefix,
    "users:count": String(users.count),
    "users:auto": String(!!users.auto),
    ...(users.rotateAfter ? { "users:rotateAfter": users.rotateAfter } : {}),
  };
  return TestStack.create({
    programDir: "test/programs/users",
    config,
    secrets: { "storage:accessToken": token },
    env,
  });
}
