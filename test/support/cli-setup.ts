// Each test file runs the CLI of its project (vitest.config.mts, test/support/global-setup.ts): everything
// that starts `pulumi` finds it through locateCli(), which reads this variable. It uses the
// package the global setup installed for the run: installConsumer() returns it without packing.
import { inject } from "vitest";
import { consumerDirVariable } from "../../scripts/consumer";

process.env.PULUMI_STORAGE_USER_CLI_DIR = inject("cliDir");
process.env[consumerDirVariable] = inject("consumerDir");
