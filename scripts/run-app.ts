/**
 * Runs scripts/demo-app.js the way a deployment hands it a StorageUser's `env` output: those
 * variables and nothing else in its environment (no PATH, HOME or AWS profile to fall back on).
 * The compiled app (`npm run build`), also when this module runs from source under vitest.
 */
import { spawn } from "node:child_process";
import * as path from "node:path";
import { nodeBinDir, repoRoot } from "./toolchain";

export function runDemoApp(env: Record<string, string>): Promise<{ code: number; output: string }> {
  const child = spawn(path.join(nodeBinDir(), "node"), [path.join(repoRoot, "dist", "scripts", "demo-app.js")], {
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (c: Buffer) => (output += c.toString("utf8")));
  child.stderr.on("data", (c: Buffer) => (output += c.toString("utf8")));
  return new Promise((resolve) => child.on("close", (code) => resolve({ code: code ?? 1, output })));
}
