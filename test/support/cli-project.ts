// What the end-to-end tests share about the CLI they run. The newest CLI runs test/e2e/engine again
// for its engine paths (vitest.config.mts); a test that proves only this package's own logic, which
// no CLI version changes, runs on the pinned CLI alone: `test.skipIf(onNewestCli)`.
import { expect, inject } from "vitest";
import { pins } from "../../scripts/toolchain";

export const onNewestCli = inject("cliVersion") !== pins.cli;

/** A command's result, once it is known to have succeeded (its output in the failure message). */
export function ok<T extends { code: number | null; output: string }>(r: T): T {
  expect(r.code, r.output).toBe(0);
  return r;
}

/** A command's result, once it is known to have failed. */
export function failed<T extends { code: number | null; output: string }>(r: T): T {
  expect(r.code, r.output).not.toBe(0);
  return r;
}
