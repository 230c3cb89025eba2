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

// Tiers by folder (docs/testing.md): test/unit needs no Pulumi CLI, no real server and no installed
// package (its setup makes finding or installing one throw); test/e2e runs the real CLI, the
// pinned one; test/e2e/engine holds the engine's paths, which the newest CLI runs too.
const support = "test/support";
const cliProject = (version: string, include: string) => ({
  extends: true,
  test: {
    name: `cli ${version}`,
    include: [include],
    globalSetup: [`${support}/repo-guard.ts`, `${support}/global-setup.ts`],
    setupFiles: [`${support}/cli-setup.ts`],
    provide: { cliVersion: version },
  },
});

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
          include: ["test/unit/**/*.test.ts"],
          globalSetup: [`${support}/repo-guard.ts`],
          setupFiles: [`${support}/unit-setup.ts`],
        },
      },
      cliProject(versions.cli, "test/e2e/**/*.test.ts"),
      cliProject(versions.cliNewest, "test/e2e/engine/**/*.test.ts"),
    ],
  },
});
