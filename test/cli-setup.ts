// Each test file runs the CLI of its project (vitest.config.mts, test/global-setup.ts): everything
// that starts `pulumi` finds it through locateCli(), which reads this variable.
import { inject } from "vitest";

process.env.PULUMI_STORAGE_USER_CLI_DIR = inject("cliDir");
