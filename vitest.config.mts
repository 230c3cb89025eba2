import { join } from "node:path";
import { defineConfig } from "vitest/config";
import { cacheDir, pins as versions } from "./scripts/toolchain";

// Node's compile cache for every Node.js process of the run: the workers, and under each CLI
// command the language host, the program and the dynamic-provider plugin, which all load
// @pulumi/pulumi, grpc-js or TypeScript and would otherwise compile them again each time. It
// changes no behaviour; it saves about 5% of a run's CPU (docs/testing.md "Measured"). It lives
// beside the Node.js versions, outside the clone; the caller's NODE_COMPILE_CACHE or
// NODE_DISABLE_COMPILE_CACHE wins.
process.env.NODE_COMPILE_CACHE ??= join(cacheDir, "node-compile-cache");

// The newest Pulumi CLI the Go module proxy serves runs these files too, beside the pinned one
// that runs everything: the engine's paths this package depends on (up, secrets in state and
// history, where a token lives and what the CLI records of it, no-change preview, refresh,
// rotation, destroy, the Automation API (its guide's programs take the same path), a force-stop and
// its recovery, state written by released versions), the YAML host's, and the CI paths
// (policy packs, the review of preview --json).
const onNewestCli = [
  "test/lifecycle.test.ts",
  "test/secret-audit.test.ts",
  "test/token-safety.test.ts",
  "test/rotation.test.ts",
  "test/automation.test.ts",
  "test/force-stop.test.ts",
  "test/upgrade.test.ts",
  "test/yaml.test.ts",
  "test/policy-pack.test.ts",
  "test/ci-review.test.ts",
];

// The unit tier, `npm run test:unit`: files that need no Pulumi CLI, no real server (the local API
// runs in-process) and no installed package, so it runs in seconds on a machine without any of
// them. Its setup (test/unit-setup.ts) makes finding a CLI or installing the package throw, and
// test/global-setup.ts is not its: nothing is built or installed before it. Every project fails
// when its run leaves the repository changed (test/repo-guard.ts). The two CLI projects
// run every other file; `npm test` runs all three.
export const unitFiles = [
  "test/api-server.test.ts",
  "test/api-surface.test.ts",
  "test/app-outputs.test.ts",
  "test/connection-settings.test.ts",
  "test/create-client.test.ts",
  "test/description.test.ts",
  "test/errors.test.ts",
  "test/import-cycles.test.ts",
  "test/input-rules.test.ts",
  "test/ledger-logic.test.ts",
  "test/package-contents.test.ts",
  "test/pending.test.ts",
  "test/project-file.test.ts",
  "test/retry-policy.test.ts",
  "test/storage-config.test.ts",
];

export default defineConfig({
  test: {
    // The 500-user load run has its own command: npm run load.
    exclude: ["test/load/**", "**/node_modules/**"],
    // End-to-end tests drive the real CLI, which spawns the language runtime and the plugin:
    // generous limits, and few files at once on a 2-core machine. A limit is no performance
    // assertion: it holds on a machine running other work too (load average 15 on 2 cores, where
    // the Automation API's many stacks and the force-stop's recovery take several times as long).
    testTimeout: 900_000,
    hookTimeout: 900_000,
    pool: "forks",
    maxWorkers: 3,
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          include: unitFiles,
          globalSetup: ["test/repo-guard.ts"],
          setupFiles: ["test/unit-setup.ts"],
        },
      },
      {
        extends: true,
        test: {
          name: `cli ${versions.cli}`,
          include: ["test/**/*.test.ts"],
          exclude: [...unitFiles, "test/load/**", "**/node_modules/**"],
          globalSetup: ["test/repo-guard.ts", "test/global-setup.ts"],
          setupFiles: ["test/cli-setup.ts"],
          provide: { cliVersion: versions.cli },
        },
      },
      {
        extends: true,
        test: {
          name: `cli ${versions.cliNewest}`,
          include: onNewestCli,
          globalSetup: ["test/repo-guard.ts", "test/global-setup.ts"],
          setupFiles: ["test/cli-setup.ts"],
          provide: { cliVersion: versions.cliNewest },
        },
      },
    ],
  },
});
