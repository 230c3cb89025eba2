// The unit tier (vitest.config.mts, project "unit") runs without the Pulumi CLI, the real servers
// and the installed package: anything that would find, build or install one throws instead
// (scripts/toolchain.ts, scripts/consumer.ts read this variable), so a test that needs them
// fails in this tier rather than quietly starting a CLI.
process.env.PULUMI_STORAGE_USER_UNIT_TIER = "1";
delete process.env.PULUMI_STORAGE_USER_CLI_DIR;
