// Makes sure the tools exist before any test runs (building the CLI and the real S3/FTP servers
// and installing the pinned Node.js versions on a cold machine), installs the packed package for the programs, and prints
// what the end-to-end tests run on.
import { execFileSync } from "node:child_process";
import * as path from "node:path";
import { installConsumer } from "../scripts/consumer";
import { cliVersion, installSwift, installToolchain, locateCli, nodeBinDir, realServerBinaries, repoRoot } from "../scripts/toolchain";

export default function setup() {
  installToolchain();
  const dir = locateCli();
  // The real S3 and FTP servers of the real-mode tests, built once here rather than in each file.
  realServerBinaries();
  // Swift and Keystone behind real mode, from Debian's packages (a no-op when installed).
  installSwift();
  // The real Pulumi YAML language host for test/yaml.test.ts (cached: a warm run is a no-op).
  execFileSync("bash", [path.join(repoRoot, "tools", "yaml-host", "build.sh")], { stdio: ["ignore", "ignore", "inherit"] });
  process.env.PULUMI_STORAGE_USER_CLI_DIR = dir;
  // The package as users install it, for every program the tests run (needs `npm run build`).
  const consumer = installConsumer();
  const node = execFileSync(path.join(nodeBinDir(), "node"), ["--version"], { encoding: "utf8" }).trim();
  console.log(`pulumi CLI ${cliVersion()} at ${dir}/pulumi with ${path.join(dir, "pulumi-language-nodejs")}; programs run on node ${node}, importing the package installed in ${consumer}`);
}
