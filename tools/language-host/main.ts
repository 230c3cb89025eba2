/**
 * `pulumi-language-nodejs`: the repo's stand-in for Pulumi's Node.js language host, started by the
 * unmodified `pulumi` CLI like the real one (next to `pulumi` or on PATH, the engine's address as
 * the last argument, its port on the first line of stdout, then the `LanguageRuntime` gRPC
 * service). Repo tooling, not shipped: the real host's Go module is refused by the module proxy
 * here (403), so tests, the demo and the benchmark reach users' path through this one. It follows
 * pulumi/pulumi v3.250.0 `sdk/nodejs/cmd/pulumi-language-nodejs/main.go` for what the CLI calls in
 * preview, up, refresh, destroy and policy packs: Handshake, GetPluginInfo, GetRequiredPackages,
 * Run (./runtime.ts), RunPlugin with the policy proxy (./run-plugin.ts), InstallDependencies and
 * Cancel. Where it differs, and why no test depends on it:
 * - About, GetProgramDependencies, RuntimeOptionsPrompts, Template, Pack, Link and Generate* answer
 *   UNIMPLEMENTED: `pulumi about`, `new`, `convert` and `package` are not run here; preview and up
 *   call About only for the update's metadata and carry on without it.
 * - No resource-monitor proxy (`--sync`), which serves only the SDK's `invokeSync`; no bun, debugger,
 *   tracing spans or glog output; InstallDependencies does not look for a workspace root; no health
 *   check of the engine (an orphaned host lingers until killed: the tests that kill the CLI end it).
 * - Run answers once the program's pipes close, without the Go host's 5 s WaitDelay for a process the
 *   program leaves behind holding them, nor its out-of-memory hint.
 * - It is a Node.js process: its launcher (scripts/toolchain.ts `hostShim`) moves NODE_OPTIONS aside
 *   for it, and it puts it back for what it starts, as the Go host passes its environment on.
 */
import * as path from "node:path";
import type * as grpcTypes from "@grpc/grpc-js";
import { runPlugin } from "./run-plugin";
import { LanguageHost, sdkDir } from "./runtime";

const grpc = require(require.resolve("@grpc/grpc-js", { paths: [sdkDir] })) as typeof grpcTypes;
const { LanguageRuntimeService } = require(path.join(sdkDir, "proto", "language_grpc_pb"));

function fail(message: string): never {
  process.stderr.write(`error: ${message}\n`);
  process.exit(1);
}

async function main() {
  const saved = process.env.PULUMI_STORAGE_USER_HOST_NODE_OPTIONS;
  delete process.env.PULUMI_STORAGE_USER_HOST_NODE_OPTIONS;
  if (saved !== undefined) process.env.NODE_OPTIONS = saved;
  // The Go host's flags (-tracing, -runtime, -version), glog's (-v, --logtostderr) ignored, the engine last.
  let tracing = "";
  const positional: string[] = [];
  const argv = process.argv.slice(2);
  for (let i = 0; i < argv.length; i++) {
    const m = /^--?([\w-]+)(?:=(.*))?$/.exec(argv[i]);
    if (!m) positional.push(argv[i]);
    else if (m[1] === "version") return console.log(require(path.join(sdkDir, "package.json")).version);
    else if (m[1] === "tracing") tracing = m[2] ?? argv[++i] ?? "";
    else if (m[1] === "runtime" && (m[2] ?? argv[++i]) !== "nodejs") fail(`unsupported runtime: ${argv[i]}`);
  }
  const limits = { "grpc.max_receive_message_length": 400 << 20, "grpc.max_send_message_length": 400 << 20 };
  const server = new grpc.Server(limits);
  const stop = () => server.tryShutdown(() => process.exit(0));
  const host = new LanguageHost(grpc, positional[0] ?? "", tracing);
  server.addService(LanguageRuntimeService, {
    ...host.service(),
    runPlugin: (call: grpcTypes.ServerWritableStream<any, any>) => void runPlugin(grpc, call),
  });
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (err, p) =>
      err ? reject(err) : resolve(p),
    ),
  );
  // The CLI reads the port from the first line of stdout; everything after it is the program's.
  process.stdout.write(`${port}\n`);
  process.once("SIGINT", stop);
}

main().catch((err) => fail(err instanceof Error ? err.message : String(err)));
