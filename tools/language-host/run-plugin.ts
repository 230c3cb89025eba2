/**
 * `RunPlugin` as the Go host does it (pulumi/pulumi v3.250.0 `main.go` `RunPlugin`): a plugin
 * written in Node.js runs `@pulumi/pulumi/cmd/run-plugin` with the program directory first; a
 * policy pack (kind `analyzer`, `pulumi preview --policy-pack`) runs `cmd/run-policy-pack` in
 * the pack's directory behind the PolicyProxy, which supplies the stack's configuration. The
 * environment is the one the engine sends, not the host's; output streams back over gRPC.
 */
import { spawn } from "node:child_process";
import * as path from "node:path";
import type * as grpcTypes from "@grpc/grpc-js";
import { PolicyProxy } from "./policy-proxy";
import { locateModule, lookPath, parseOptions, sdkDir, splitArgs } from "./runtime";

const pb = require(path.join(sdkDir, "proto", "language_pb"));

/** Errors of RunPlugin reach the engine as the call's status, as a Go handler's returned error does. */
export async function runPlugin(grpc: typeof grpcTypes, call: grpcTypes.ServerWritableStream<any, any>): Promise<void> {
  const req = call.request;
  const send = (which: "stdout" | "stderr", data: Buffer | string) =>
    call.write(new pb.RunPluginResponse()[which === "stdout" ? "setStdout" : "setStderr"](Buffer.from(data)));
  let proxy: PolicyProxy | undefined;
  let kill = () => {};
  let done = false;
  call.on("cancelled", () => {
    if (!done) kill();
    proxy?.close();
  });
  try {
    const info = req.getInfo();
    const programDir: string = info.getProgramDirectory();
    const analyzer = req.getKind() === "analyzer";
    const node = lookPath("node");
    if (!node) throw new Error('exec: "node": executable file not found in $PATH');
    const opts = parseOptions(info);

    const env: NodeJS.ProcessEnv = {};
    for (const kv of req.getEnvList() as string[]) {
      const i = kv.indexOf("=");
      if (i > 0) env[kv.slice(0, i)] = kv.slice(i + 1);
    }
    if (opts.typescript) env.PULUMI_NODEJS_TYPESCRIPT = "true";
    if (opts.tsconfig) env.PULUMI_NODEJS_TSCONFIG_PATH = opts.tsconfig;

    const runModule = analyzer
      ? "@pulumi/pulumi/cmd/run-policy-pack"
      : process.env.PULUMI_LANGUAGE_NODEJS_RUN_PATH || "@pulumi/pulumi/cmd/run-plugin";
    const runPath = await locateModule(node, runModule, programDir, true);
    // As the Go host orders them: nodeargs after the script; a policy pack's directory last.
    const args = [runPath, ...splitArgs(opts.nodeargs)];
    if (analyzer) args.push(...req.getArgsList(), programDir);
    else args.push(programDir, ...req.getArgsList());

    if (analyzer) {
      proxy = await PolicyProxy.start(grpc, (text) => send("stdout", text));
      const config = await proxy.awaitConfiguration();
      if (config) {
        const set = (k: string, v: string) => v && (env[k] = v);
        set("PULUMI_NODEJS_ORGANIZATION", config.getOrganization());
        set("PULUMI_NODEJS_PROJECT", config.getProject());
        set("PULUMI_NODEJS_STACK", config.getStack());
        set("PULUMI_NODEJS_DRY_RUN", String(config.getDryRun()));
        const entries = config.getConfigMap().getEntryList() as Array<[string, string]>;
        if (entries.length) set("PULUMI_CONFIG", JSON.stringify(Object.fromEntries(entries)));
      }
    }
    if (call.cancelled) return;

    const child = spawn(node, args, {
      cwd: analyzer ? programDir : req.getPwd() || undefined,
      // Go's exec with an empty Env list runs with the host's environment.
      env: Object.keys(env).length ? env : process.env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    kill = () => child.kill("SIGKILL");
    const exited = new Promise<number | null>((resolve, reject) => {
      child.once("error", (err) =>
        reject(new Error(`Problem executing plugin program (could not run language executor): ${err.message}`)),
      );
      child.once("close", (code, signal) => resolve(code ?? (signal ? -1 : null)));
    });
    child.stderr.on("data", (d: Buffer) => send("stderr", d));
    if (!proxy) child.stdout.on("data", (d: Buffer) => send("stdout", d));
    const code = await (proxy ? proxy.attach(child.stdout, (d) => send("stdout", d), exited) : exited);
    if (code !== 0) throw new Error(`Program exited with non-zero exit code: ${code}`);
    done = true;
    call.end();
  } catch (err) {
    done = true;
    if (!call.cancelled) call.emit("error", { code: grpc.status.UNKNOWN, details: (err as Error).message });
  } finally {
    proxy?.close();
  }
}
