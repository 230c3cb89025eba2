// What the language host gave this program: its own process, the Node.js on PATH, the runtime
// options of Pulumi.yaml and the stack config. `probe:mode` picks a failure to show instead,
// or leaves a process running.
import * as fs from "node:fs";
import * as pulumi from "@pulumi/pulumi";

const config = new pulumi.Config();
const mode = config.get("mode");
if (mode === "type-error") {
  // Loaded only in this mode, so the type checker sees it only then.
  require("./type-error");
}
if (mode === "throw") throw new Error("probe failed on purpose");
if (mode === "orphan") {
  // A process the program leaves running, holding the program's stdout and stderr.
  const child = require("node:child_process").spawn(process.execPath, ["-e", "setTimeout(() => {}, 120000)"], {
    stdio: ["ignore", "inherit", "inherit"],
    detached: true,
  });
  child.unref();
  fs.writeFileSync(config.require("pidFile"), String(child.pid));
}

const parentCmd = fs.readFileSync(`/proc/${process.ppid}/cmdline`, "utf8").split("\0").filter(Boolean);
export const pid = process.pid;
export const parent = parentCmd.join(" ");
export const nodeVersion = process.version;
export const execArgv = process.execArgv;
export const entry = process.argv[1];
export const typescript = process.env.PULUMI_NODEJS_TYPESCRIPT ?? "";
export const greeting = config.require("greeting");
export const secretIsSecret = pulumi.isSecret(config.requireSecret("hidden"));
export const project = pulumi.getProject();
export const stack = pulumi.getStack();
export const dryRunSeen = pulumi.runtime.isDryRun();
// What a `--require` preload in the user's NODE_OPTIONS left (test/language-host.test.ts).
export const nodeOptions = process.env.NODE_OPTIONS ?? "";
export const preloaded = (globalThis as { __psuPreloaded?: boolean }).__psuPreloaded ?? false;
