/**
 * `pulumi-language-nodejs`: the repo's stand-in for Pulumi's Node.js language host, started by the
 * unmodified `pulumi` CLI exactly like the real one (found next to `pulumi` or on PATH, the engine
 * address as the last argument, the port read from the first line of stdout, then the
 * `LanguageRuntime` gRPC service). Repo tooling, not part of the package: the Go module of the
 * real host is refused by the module proxy here (403), so tests, the demo and the benchmarks run
 * users' path through this one. Reference: pulumi/pulumi v3.250.0,
 * `sdk/nodejs/cmd/pulumi-language-nodejs/main.go`; the RPCs are in ./runtime.ts, RunPlugin in
 * ./run-plugin.ts (with ./policy-proxy.ts), the lock-file readers in ./lockfiles.ts.
 *
 * test/e2e/language-host.test.ts and test/e2e/engine/policy-pack.test.ts pass on this host and on the Go host
 * built from that tag's source (run them with PULUMI_STORAGE_USER_CLI_DIR at a directory holding
 * `pulumi`, `pulumi-resource-pulumi-nodejs` and the Go `pulumi-language-nodejs`). What still
 * differs, and why no test depends on it:
 * - No resource-monitor proxy, so no `--sync <dir>` for `cmd/run`: the Go host proxies the
 *   monitor only to serve the pipes of the SDK's synchronous invokes (`invokeSync`); no program
 *   here makes one, and no test reads `cmd/run`'s flags beyond the script path.
 * - The host is a Node.js process (the Go host is a binary). NODE_OPTIONS is moved aside for it
 *   by its launcher (scripts/toolchain.ts `hostShim`) and put back for everything it starts, as
 *   the Go host passes its environment on; Node's other startup variables (NODE_DEBUG,
 *   NODE_PATH, NODE_EXTRA_CA_CERTS...) still apply to this process. None writes to stdout, so
 *   the handshake holds, and the host makes no HTTP calls; tests set only NODE_OPTIONS and
 *   NODE_EXTRA_CA_CERTS, the latter read by the plugin, not by this process.
 * - No `bun` runtime (`-runtime=bun`, bun.lock), no debugger attach (`AttachDebugger` in Run and
 *   RunPlugin), no OpenTracing or OpenTelemetry spans and no TRACEPARENT for the program
 *   (`--tracing` is passed on to `cmd/run` as the Go host does), no verbose log (the glog flags
 *   `-v`, `--logtostderr`, `--logflow` are accepted and ignored). No test uses bun, a debugger, a
 *   trace endpoint or `pulumi -v`.
 * - `InstallDependencies` runs the package manager in the program directory; it does not search
 *   up for an npm/yarn workspace root and ignores `useLanguageVersionTools` (fnm). The
 *   package.yaml manifest (pnpm only) is not looked for, by it or by `GetProgramDependencies`.
 *   Every program the tests install is a standalone package.json project without fnm.
 * - `GenerateProject`, `GenerateProgram`, `GeneratePackage`, `Pack` and `Link` (`pulumi
 *   convert`, `package gen-sdk`, `package add`) answer UNIMPLEMENTED; no test or script runs
 *   those commands.
 * - `-version` and `GetPluginInfo` give the version of the repo's @pulumi/pulumi (the Go host:
 *   the version it was built with); no test reads the language plugin's version.
 */
import * as path from "node:path";
import type * as grpcTypes from "@grpc/grpc-js";
import { LanguageHost } from "./runtime";

/** The SDK whose generated bindings this host serves (the repo's own @pulumi/pulumi). */
const sdkDir = path.dirname(require.resolve("@pulumi/pulumi/package.json"));
const grpc = require(require.resolve("@grpc/grpc-js", { paths: [sdkDir] })) as typeof grpcTypes;
const { LanguageRuntimeService } = require(path.join(sdkDir, "proto", "language_grpc_pb"));

/** The Go host's flags (`-tracing`, `-runtime`, `-version`) and the plugin flags the CLI may add. */
function parseArgs(argv: string[]): { tracing: string; version: boolean; engine: string } {
  let tracing = "";
  let version = false;
  const positional: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const m = /^--?([\w-]+)(?:=(.*))?$/.exec(argv[i]);
    if (!m) {
      positional.push(argv[i]);
      continue;
    }
    const [, name, inline] = m;
    const value = () => inline ?? argv[++i] ?? "";
    if (name === "tracing") tracing = value();
    else if (name === "runtime" && value() !== "nodejs") fail(`unsupported runtime: ${inline ?? argv[i]}`);
    else if (name === "version") version = true;
    // --logtostderr, -v=N, --logflow: glog flags for the Go host's own debug log; nothing to log here.
  }
  return { tracing, version, engine: positional[0] ?? "" };
}

function fail(message: string): never {
  process.stderr.write(`error: ${message}\n`);
  process.exit(1);
}

/**
 * The Go host's `rpcutil.Healthcheck`: every 5 minutes ask the engine's gRPC health service, and
 * stop when it is gone (UNIMPLEMENTED counts as alive), so an orphaned host does not linger.
 */
export function watchEngine(address: string, stop: () => void): void {
  const Health = grpc.makeGenericClientConstructor(
    {
      Check: {
        path: "/grpc.health.v1.Health/Check",
        requestStream: false,
        responseStream: false,
        requestSerialize: () => Buffer.alloc(0), // an empty HealthCheckRequest
        requestDeserialize: (b: Buffer) => b,
        responseSerialize: (b: Buffer) => b,
        responseDeserialize: (b: Buffer) => b,
      },
    },
    "Health",
  );
  const client = new Health(address, grpc.credentials.createInsecure());
  const timer = setInterval(() => {
    client.makeUnaryRequest(
      "/grpc.health.v1.Health/Check",
      () => Buffer.alloc(0),
      (b: Buffer) => b,
      {},
      (err: grpcTypes.ServiceError | null) => {
        if (err && err.code !== grpc.status.UNIMPLEMENTED) {
          clearInterval(timer);
          stop();
        }
      },
    );
  }, 5 * 60_000);
  timer.unref();
}

/** The user's NODE_OPTIONS, moved aside by the launcher (scripts/toolchain.ts hostShim), back for the programs and tools this host starts. */
function restoreNodeOptions() {
  const saved = process.env.PULUMI_STORAGE_USER_HOST_NODE_OPTIONS;
  delete process.env.PULUMI_STORAGE_USER_HOST_NODE_OPTIONS;
  if (saved !== undefined) process.env.NODE_OPTIONS = saved;
}

async function main() {
  restoreNodeOptions();
  const args = parseArgs(process.argv.slice(2));
  if (args.version) {
    console.log(require(path.join(sdkDir, "package.json")).version);
    return;
  }
  // As the Go host: 400 MiB messages (rpcutil.GrpcChannelOptions), the kernel picks the port.
  const server = new grpc.Server({
    "grpc.max_receive_message_length": 400 * 1024 * 1024,
    "grpc.max_send_message_length": 400 * 1024 * 1024,
  });
  const stop = () => server.tryShutdown(() => process.exit(0));
  const host = new LanguageHost(grpc, args.engine, args.tracing, (address) => watchEngine(address, stop));
  server.addService(LanguageRuntimeService, host.service());
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (err, p) =>
      err ? reject(err) : resolve(p),
    ),
  );
  if (args.engine) watchEngine(args.engine, stop);
  // The CLI reads the port from the first line of stdout; everything after it is program output.
  process.stdout.write(`${port}\n`);
  // Like the Go host's signal.NotifyContext(os.Interrupt): stop serving, letting a running Run end.
  process.once("SIGINT", stop);
}

main().catch((err) => fail(err instanceof Error ? err.message : String(err)));
