/**
 * The Go host's `sdk.PolicyProxy` (pulumi/pulumi v3.250.0 `sdk/policy_proxy.go`): the engine
 * starts a policy pack through `RunPlugin` and first talks to this Analyzer server, whose port
 * the host prints. It answers `Handshake` itself and keeps the `ConfigureStack` request, which
 * the host turns into the environment `@pulumi/pulumi/cmd/run-policy-pack` reads; once the pack
 * is up (its port the first line of its stdout), every other call is forwarded to it.
 */
import * as path from "node:path";
import type { Readable } from "node:stream";
import type * as grpcTypes from "@grpc/grpc-js";

const sdkDir = path.dirname(require.resolve("@pulumi/pulumi/package.json"));
const { AnalyzerService } = require(path.join(sdkDir, "proto", "analyzer_grpc_pb"));
const analyzerPb = require(path.join(sdkDir, "proto", "analyzer_pb"));

/** A promise settled once; later settlements are ignored (Go's promise.CompletionSource). */
class Once<T> {
  settled = false;
  value: T | undefined;
  private settle!: (v: T | undefined, e?: Error) => void;
  readonly promise = new Promise<T>((resolve, reject) => {
    this.settle = (v, e) => (e ? reject(e) : resolve(v as T));
  });
  constructor() {
    this.promise.catch(() => undefined);
  }
  fulfill(v: T) {
    if (!this.settled) [this.settled, this.value] = [true, v];
    this.settle(v);
  }
  reject(e: Error) {
    this.settled = true;
    this.settle(undefined, e);
  }
}

type Analyzer = grpcTypes.Client & Record<string, (...args: any[]) => any>;

const messageLimits = {
  "grpc.max_receive_message_length": 400 * 1024 * 1024,
  "grpc.max_send_message_length": 400 * 1024 * 1024,
};

export class PolicyProxy {
  private readonly configuration = new Once<any | null>();
  private readonly client = new Once<Analyzer>();
  private server!: grpcTypes.Server;

  private constructor(private readonly grpc: typeof grpcTypes) {}

  /** Starts the Analyzer server on 127.0.0.1 and prints its port to `stdout`. */
  static async start(grpc: typeof grpcTypes, stdout: (text: string) => void): Promise<PolicyProxy> {
    const proxy = new PolicyProxy(grpc);
    proxy.server = new grpc.Server(messageLimits);
    proxy.server.addService(AnalyzerService, proxy.service());
    const port = await new Promise<number>((resolve, reject) =>
      proxy.server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (err, p) =>
        err ? reject(err) : resolve(p),
      ),
    );
    stdout(`${port}\n`);
    return proxy;
  }

  /** The `ConfigureStack` request, or null when the engine called something else first. */
  awaitConfiguration(): Promise<any | null> {
    return this.configuration.promise;
  }

  /**
   * Reads the pack's port from the first line of its stdout, forwards the rest to `write`,
   * connects, replays `ConfigureStack`; resolves with the pack's exit code.
   */
  async attach(stdout: Readable, write: (chunk: Buffer) => void, exited: Promise<number | null>) {
    let buffered = Buffer.alloc(0);
    let port: number | undefined;
    try {
      port = await new Promise<number>((resolve, reject) => {
        stdout.on("data", (chunk: Buffer) => {
          if (port !== undefined) return write(chunk);
          buffered = Buffer.concat([buffered, chunk]);
          const nl = buffered.indexOf("\n");
          if (nl < 0) return;
          const line = buffered.subarray(0, nl).toString("utf8");
          if (!/^\s*\d+\s*$/.test(line))
            return reject(new Error(`could not read policy pack port: expected integer, got ${JSON.stringify(line)}`));
          if (nl + 1 < buffered.length) write(buffered.subarray(nl + 1));
          resolve((port = Number(line.trim())));
        });
        stdout.on(
          "end",
          () => port === undefined && reject(new Error("could not read policy pack port: unexpected EOF")),
        );
      });
      const Client = this.grpc.makeGenericClientConstructor(AnalyzerService, "Analyzer");
      const client = new Client(`127.0.0.1:${port}`, this.grpc.credentials.createInsecure(), messageLimits) as Analyzer;
      const configuration = this.configuration.value;
      if (configuration)
        await new Promise<void>((resolve, reject) =>
          client.configureStack(configuration, (err: grpcTypes.ServiceError | null) =>
            !err || err.code === this.grpc.status.UNIMPLEMENTED
              ? resolve()
              : reject(new Error(`policy pack configuration failed: ${err.message}`)),
          ),
        );
      this.client.fulfill(client);
    } catch (err) {
      this.client.reject(err as Error);
      throw err;
    }
    return exited;
  }

  close() {
    this.server.forceShutdown();
    if (this.client.settled && this.client.value) this.client.value.close();
  }

  private service(): grpcTypes.UntypedServiceImplementation {
    const forward =
      (method: string) => (call: grpcTypes.ServerUnaryCall<any, any>, callback: grpcTypes.sendUnaryData<any>) => {
        // The engine may ask for the pack's info before configuring it (`policy publish`): no configuration then.
        this.configuration.fulfill(null);
        this.client.promise.then(
          (client) =>
            client[method](call.request, (err: grpcTypes.ServiceError | null, res: any) => callback(err, res)),
          (err: Error) =>
            callback({ code: this.grpc.status.UNKNOWN, details: `policy pack not started: ${err.message}` }),
        );
      };
    return {
      handshake: (_call: grpcTypes.ServerUnaryCall<any, any>, callback: grpcTypes.sendUnaryData<any>) =>
        callback(null, new analyzerPb.AnalyzerHandshakeResponse()),
      configureStack: (call: grpcTypes.ServerUnaryCall<any, any>, callback: grpcTypes.sendUnaryData<any>) => {
        this.configuration.fulfill(call.request);
        callback(null, new analyzerPb.AnalyzerStackConfigureResponse());
      },
      analyze: forward("analyze"),
      analyzeStack: forward("analyzeStack"),
      remediate: forward("remediate"),
      getAnalyzerInfo: forward("getAnalyzerInfo"),
      getPluginInfo: forward("getPluginInfo"),
      configure: forward("configure"),
      cancel: forward("cancel"),
    };
  }
}
