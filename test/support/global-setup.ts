// Makes sure the tools exist before any test runs (building the CLIs and the real S3/FTP servers
// and installing the pinned Node.js versions on a cold machine), installs the packed package for
// the programs, and prints what the end-to-end tests run on. Vitest runs it once per test project
// (vitest.config.mts): the first run does the work, each gives its project the CLI it tests.
import { execFileSync } from "node:child_process";
import * as path from "node:path";
import type { TestProject } from "vitest/node";
import { installConsumer } from "../../scripts/consumer";
import {
  installSwift,
  installToolchain,
  locateCli,
  nodeBinDir,
  pins,
  realServerBinaries,
  repoRoot,
} from "../../scripts/toolchain";

declare module "vitest" {
  export interface ProvidedContext {
    /** The Pulumi CLI version a project's tests run (vitest.config.mts); the pinned one when not given. */
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
  let tools = memo[done];
  if (!tools) {
    installToolchain();
    // The real S3 and FTP servers of the real-mode tests, built once here rather than in each file.
    realServerBinaries();
    // Swift and Keystone behind real mode, from Debian's packages (a no-op when installed).
    installSwift();
    // The real Pulumi YAML language host for test/e2e/engine/yaml.test.ts (cached: a warm run is a no-op).
    execFileSync("bash", [path.join(repoRoot, "tools", "yaml-host", "build.sh")], {
      stdio: ["ignore", "ignore", "inherit"],
    });
    // The package as users install it, for every program the tests run (needs `npm run build`):
    // packed once here, so every file of the run uses the same install, whatever changes meanwhile.
    const consumer = installConsumer();
    const node = execFileSync(path.join(nodeBinDir(), "node"), ["--version"], { encoding: "utf8" }).trim();
    tools = memo[done] = { consumer, node };
  }
  const version = (project.config.provide as { cliVersion?: string } | undefined)?.cliVersion ?? pins.cli;
  const dir = locateCli(version);
  project.provide("cliDir", dir);
  project.provide("consumerDir", tools.consumer);
  const reported = execFileSync(path.join(dir, "pulumi"), ["version"], { encoding: "utf8" }).trim();
  console.log(
    `[${project.name || "root"}] pulumi CLI ${reported} at ${dir}/pulumi with ${path.join(dir, "pulumi-language-nodejs")}; programs run on node ${tools.node}, importing the package installed in ${tools.consumer}`,
  );
}
