/**
 * Warnings as warnings, under the resource they concern: through the engine's Log service (its
 * address is the plugin's argument) with the resource's URN, since what a plugin prints reaches
 * the engine as unattributed text. The console is the fallback.
 */
import * as path from "node:path";
import { StorageUserWarningCode, messages, warningText } from "../messages";

type Pb = typeof import("@pulumi/pulumi/proto/engine_pb");
type Client = InstanceType<typeof import("@pulumi/pulumi/proto/engine_grpc_pb").EngineClient>;
let engine: { client: Client; pb: Pb } | null | undefined;

function connect(): typeof engine {
  if (engine !== undefined) return engine;
  engine = null;
  const address = process.argv.slice(2).find((a) => /^[^-].*:\d+$/.test(a));
  if (!address) return engine;
  try {
    /* eslint-disable @typescript-eslint/no-require-imports -- plugin only; grpc-js from the SDK's own dependencies (pnpm does not hoist it) */
    const sdk = path.dirname(require.resolve("@pulumi/pulumi/package.json"));
    const grpc = require(require.resolve("@grpc/grpc-js", { paths: [sdk] })) as typeof import("@grpc/grpc-js");
    const { EngineClient } =
      require("@pulumi/pulumi/proto/engine_grpc_pb") as typeof import("@pulumi/pulumi/proto/engine_grpc_pb");
    const pb = require("@pulumi/pulumi/proto/engine_pb") as Pb;
    /* eslint-enable @typescript-eslint/no-require-imports */
    engine = { client: new EngineClient(address, grpc.credentials.createInsecure()), pb };
  } catch {
    engine = null;
  }
  return engine;
}

/** Logs the warning `code` as a warning of the resource `urn` (of the stack when there is none). */
export async function warn<C extends StorageUserWarningCode>(
  urn: unknown,
  code: C,
  details: Parameters<(typeof messages.warnings)[C]>[0],
): Promise<void> {
  const text = warningText(code, details);
  const e = connect();
  if (!e) return void console.warn(`warning: ${text}`);
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
