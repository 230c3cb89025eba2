/**
 * Warnings as warnings, under the resource they concern: through the engine's Log service (its
 * address is the plugin's argument) with the `__urn` input's URN, since what the plugin prints to
 * the console reaches the engine as unattributed stack text. The console is the fallback.
 */
import * as path from "node:path";
import type { StorageUserWarningCode } from "../warnings";

type Pb = typeof import("@pulumi/pulumi/proto/engine_pb");
type EngineClient = InstanceType<typeof import("@pulumi/pulumi/proto/engine_grpc_pb").EngineClient>;

let engine: { client: EngineClient; pb: Pb } | null | undefined;

function connect(): typeof engine {
  if (engine !== undefined) return engine;
  engine = null;
  try {
    // The plugin's one positional argument is the engine's address (host:port).
    const address = process.argv.slice(2).find((a) => /^[^-].*:\d+$/.test(a));
    if (!address) return engine;
    const sdk = path.dirname(require.resolve("@pulumi/pulumi/package.json"));
    // @grpc/grpc-js is @pulumi/pulumi's dependency: resolve it from there (pnpm does not hoist it).
    /* eslint-disable @typescript-eslint/no-require-imports -- loaded only in the plugin, and grpc-js from the SDK's own dependencies */
    const grpc = require(require.resolve("@grpc/grpc-js", { paths: [sdk] })) as typeof import("@grpc/grpc-js");
    const engrpc =
      require("@pulumi/pulumi/proto/engine_grpc_pb") as typeof import("@pulumi/pulumi/proto/engine_grpc_pb");
    const pb = require("@pulumi/pulumi/proto/engine_pb") as Pb;
    /* eslint-enable @typescript-eslint/no-require-imports */
    engine = { client: new engrpc.EngineClient(address, grpc.credentials.createInsecure()), pb };
  } catch {
    engine = null;
  }
  return engine;
}

/**
 * Logs `message` (which starts with "warning: ") as a warning of the resource `urn` (of the
 * stack when there is none), marked with its stable `code`: `[CODE] …`.
 */
export async function warnAbout(urn: unknown, code: StorageUserWarningCode, message: string): Promise<void> {
  const text = `[${code}] ${message.replace(/^warning: /, "")}`;
  const e = connect();
  if (!e) {
    console.warn(`warning: ${text}`);
    return;
  }
  const req = new e.pb.LogRequest();
  req.setSeverity(e.pb.LogSeverity.WARNING);
  req.setMessage(text);
  if (typeof urn === "string" && urn.startsWith("urn:pulumi:")) req.setUrn(urn);
  await new Promise<void>((resolve) =>
    e.client.log(req, (err) => {
      if (err) console.warn(`warning: ${text}`);
      resolve();
    }),
  );
}
