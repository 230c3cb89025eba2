// Warnings under the resource they concern, through the engine's Log service (its address is the plugin's
// argument): what a plugin prints reaches the engine as unattributed text. The console is the fallback.
import * as path from "node:path";
import { StorageUserWarningCode, WarningArgs, warningText } from "../messages";

type Pb = typeof import("@pulumi/pulumi/proto/engine_pb");
type Client = InstanceType<typeof import("@pulumi/pulumi/proto/engine_grpc_pb").EngineClient>;
let engine: { client: Client; pb: Pb } | null | undefined;

function connect(): typeof engine {
  const address = process.argv.slice(2).find((a) => /^[^-].*:\d+$/.test(a));
  if (engine !== undefined || !address) return (engine ??= null);
  try {
    /* eslint-disable @typescript-eslint/no-require-imports -- plugin only; grpc-js from the SDK's own dependencies (pnpm does not hoist it) */
    const grpc = require(
      require.resolve("@grpc/grpc-js", { paths: [path.dirname(require.resolve("@pulumi/pulumi/package.json"))] }),
    ) as typeof import("@grpc/grpc-js");
    const { EngineClient } =
      require("@pulumi/pulumi/proto/engine_grpc_pb") as typeof import("@pulumi/pulumi/proto/engine_grpc_pb");
    const pb = require("@pulumi/pulumi/proto/engine_pb") as Pb;
    /* eslint-enable @typescript-eslint/no-require-imports */
    return (engine = { client: new EngineClient(address, grpc.credentials.createInsecure()), pb });
  } catch {
    return (engine = null);
  }
}

/** Logs the warning `code` as a warning of the resource `urn` (of the stack when there is none). */
export async function warn<C extends StorageUserWarningCode>(
  urn: unknown,
  code: C,
  details: WarningArgs<C>,
): Promise<void> {
  const text = warningText(code, details);
  const e = connect();
  if (!e) return void console.warn(`warning: ${text}`);
  const req = new e.pb.LogRequest();
  req.setSeverity(e.pb.LogSeverity.WARNING);
  req.setMessage(text);
  if (typeof urn === "string" && urn.startsWith("urn:pulumi:")) req.setUrn(urn);
  await new Promise<void>((resolve) =>
    e.client.log(req, (err) => resolve(err ? console.warn(`warning: ${text}`) : undefined)),
  );
}
