/**
 * Plugin side: warnings shown under the resource they concern. What the dynamic-provider plugin
 * prints to the console reaches the CLI as a message of the stack; the engine's own Log service
 * (whose address the plugin is started with) takes the resource's URN, so the CLI shows the
 * warning under that StorageUser, at preview as at up. The URN comes from the resource's
 * `__urn` input (program/storage-user.ts). Whenever that is not possible, the console is used.
 */
import * as path from "node:path";

interface EngineClient {
  log(req: unknown, cb: (err: Error | null) => void): void;
}

let engine: { client: EngineClient; pb: { LogRequest: new () => any; LogSeverity: { WARNING: number } } } | null | undefined;

function connect(): typeof engine {
  if (engine !== undefined) return engine;
  engine = null;
  try {
    // The plugin's one positional argument is the engine's address (host:port).
    const address = process.argv.slice(2).find((a) => /^[^-].*:\d+$/.test(a));
    if (!address) return engine;
    const sdk = path.dirname(require.resolve("@pulumi/pulumi/package.json"));
    // @grpc/grpc-js is @pulumi/pulumi's dependency: resolve it from there (pnpm does not hoist it).
    const grpc = require(require.resolve("@grpc/grpc-js", { paths: [sdk] }));
    const engrpc = require("@pulumi/pulumi/proto/engine_grpc_pb");
    const pb = require("@pulumi/pulumi/proto/engine_pb");
    engine = { client: new engrpc.EngineClient(address, grpc.credentials.createInsecure()), pb };
  } catch {
    engine = null;
  }
  return engine;
}

/** Logs `message` (which starts with "warning: ") as a warning of the resource `urn`. */
export async function warnAbout(urn: unknown, message: string): Promise<void> {
  const e = typeof urn === "string" && urn.startsWith("urn:pulumi:") ? connect() : null;
  if (!e) {
    console.warn(message);
    return;
  }
  const req = new e.pb.LogRequest();
  req.setSeverity(e.pb.LogSeverity.WARNING);
  req.setMessage(message.replace(/^warning: /, ""));
  req.setUrn(urn);
  await new Promise<void>((resolve) =>
    e.client.log(req, (err) => {
      if (err) console.warn(message);
      resolve();
    }),
  );
}
