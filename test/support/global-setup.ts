// Makes sure the tools exist before any end-to-end test runs (on a cold machine: the CLIs, the real
// S3 and FTP servers, the YAML host, the pinned Node.js versions; Swift is .ci/run's, by name), installs the packed
// package for the programs once, so every file of the run uses the same install whatever changes
// meanwhile, and gives each CLI project (vitest.config.mts) the CLI it tests.
import { execFileSync } from "node:child_process";
import * as path from "node:path";
import type { TestProject } from "vitest/node";
import { installConsumer } from "../../scripts/consumer";
import { installToolchain, locateCli, nodeBinDir, pins, realServerBinaries, repoRoot } from "../../scripts/toolchain";

declare module "vitest" {
  export interface ProvidedContext {
    /** The Pulumi CLI version a project's tests run (vitest.config.mts). */
    cliVersion: string;
    /** Where that CLI is laid out like an install (scripts/toolchain.ts locateCli). */
    cliDir: string;
    /** The package packed and installed once for the whole run (scripts/consumer.ts installConsumer). */
    consumerDir: string;
  }
}

// On globalThis: each project may load this file anew, in the same process.
const done = Symbol.for("pulumi-storage-user.tools");
const memo = globalThis as { [done]?: { consumer: string; node: string } };

export default function setup(project: TestProject) {
  if (!memo[done]) {
    installToolchain();
    realServerBinaries();
    execFileSync("bash", [path.join(repoRoot, "tools", "yaml-host", "build.sh")], {
      stdio: ["ignore", "ignore", "inherit"],
    });
    const node = execFileSync(path.join(nodeBinDir(), "node"), ["--version"], { encoding: "utf8" }).trim();
    memo[done] = { consumer: installConsumer(), node }; // needs `npm run build`
  }
  const tools = memo[done];
  const version = (project.config.provide as { cliVersion?: string } | undefined)?.cliVersion ?? pins.cli;
  const dir = locateCli(version);
  project.provide("cliDir", dir);
  project.provide("consumerDir", tools.consumer);
  const reported = execFileSync(path.join(dir, "pulumi"), ["version"], { encoding: "utf8" }).trim();
  console.log(
    `[${project.name}] pulumi CLI ${reported} at ${dir}; programs run on node ${tools.node}, importing the package installed in ${tools.consumer}`,
  );
}
