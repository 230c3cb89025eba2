// The newest CLI runs a file again for its engine paths (vitest.config.mts onNewestCli). A test that
// proves only this package's own logic, which no CLI version changes, runs on the pinned CLI alone:
// `test.skipIf(onNewestCli)`.
import { inject } from "vitest";
import { pins } from "../../scripts/toolchain";

export const onNewestCli = inject("cliVersion") !== pins.cli;
