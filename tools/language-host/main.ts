/**
 * `pulumi-language-nodejs`: the repo's stand-in for Pulumi's Node.js language host, started by the
 * unmodified `pulumi` CLI exactly like the real one (found next to `pulumi` or on PATH, the engine
 * address as the last argument, the port read from the first line of stdout, then the
 * `LanguageRuntime` gRPC service). Repo tooling, not part of the package: the Go module of the
 * real host is refused by the module proxy here (403), so tests, the demo and the benchmarks run
 * users' path through this one. Reference: pulumi/pulumi v3.250.0,
 * `sdk/nodejs/cmd/pulumi-language-nodejs/main.go`; the RPCs are in ./runtime.ts.
 *
 * Differences from the Go host, and why they do not matter here:
 * - No resource-monitor proxy and no `--sync` pipes. The Go host proxies the monitor only to serve
 *   the FIFO pipes of the SDK's synchronous `invoke` (runtime/settings.js `syncDir`); programs here
 *   make no synchronous invokes, so `cmd/run` is given the engine's monitor address directly.
 * - No `bun` runtime (`-runtime=bun`), no debugger attach (`AttachDebugger`), no OpenTelemetry or
 *   Zipkin spans (`--tracing` is accepted and passed on to `cmd/run` as the Go host does).
 * - `InstallDependencies` runs the package manager's install in the program directory; it does
 *   not search up for an npm/yarn workspace root and ignores `useLanguageVersionTools` (fnm).
 * - `GetProgramDependencies` reads installed packages from `node_modules`, where the Go host
 *   parses the lock file; a Yarn Plug'n'Play install (no node_modules) lists nothing.
 * - `RunPlugin`, `GenerateProject/Program/Package`, `Pack` and `Link` (plugins written in Node,
 *   `pulumi convert`, `package gen-sdk`, `package add`) answer UNIMPLEMENTED; `preview`, `up`,
 *   `refresh`, `destroy`, `stack`, `config`, `install` and `about` do not call them.
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

async function main() {
  const args = parseArgs(process.argv.slice(2));
  if (args.version) {
    console.log(require(path.join(sdkDir, "package.json")).version);
    return;
  }
  // As the Go host: 400 MiB messages (rpcutil.GrpcChannelOptions), the kernel picks the port.
  const server = new grpc.Server({ "grpc.max_receive_message_length": 400 * 1024 * 1024, "grpc.max_send_message_length": 400 * 1024 * 1024 });
  const stop = () => server.tryShutdown(() => process.exit(0));
  const host = new LanguageHost(grpc, args.engine, args.tracing, (address) => watchEngine(address, stop));
  server.addService(LanguageRuntimeService, host.service());
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p))),
  );
  if (args.engine) watchEngine(args.engine, stop);
  // The CLI reads the port from the first line of stdout; everything after it is program output.
  process.stdout.write(`${port}\n`);
  // Like the Go host's signal.NotifyContext(os.Interrupt): stop serving, letting a running Run end.
  process.once("SIGINT", stop);
}

main().catch((err) => fail(err instanceof Error ? err.message : String(err)));
