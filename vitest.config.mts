import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // The 500-user load run has its own command: npm run load.
    exclude: ["test/load/**", "**/node_modules/**"],
    globalSetup: ["test/global-setup.ts"],
    // End-to-end tests drive the real CLI, which spawns the language runtime and the plugin:
    // generous limits, and few files at once on a 2-core machine.
    testTimeout: 300_000,
    hookTimeout: 300_000,
    pool: "forks",
    maxWorkers: 3,
  },
});
