// `npm run load`: the load test alone (test/load/load.test.ts), which `npm test` skips. Written
// as CommonJS, since package.json has no "type": "module" and the path is fixed by that script.
/** @type {import("vitest/config").UserConfig} */
module.exports = {
  test: {
    include: ["test/load/**/*.test.ts"],
    globalSetup: ["test/support/repo-guard.ts", "test/support/global-setup.ts"],
    setupFiles: ["test/support/cli-setup.ts"],
    env: { PULUMI_STORAGE_USER_LOAD: "1" },
    testTimeout: 30 * 60_000,
    hookTimeout: 5 * 60_000,
    pool: "forks",
    maxWorkers: 1,
  },
};
