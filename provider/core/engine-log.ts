// Warnings under the resource they concern, through the engine's Log service (its address is the plugin's
// argument): what a plugin prints reaches the engine as unattributed text. The console is the fallback.
import { StorageUserWarningCode, WarningArgs, warningText } from "../messages";
import { engineLog } from "./sdk-seam";

let engine: ReturnType<typeof engineLog> | undefined;
const connect = () => {
  const address = process.argv.slice(2).find((a) => /^[^-].*:\d+$/.test(a));
  if (engine === undefined) engine = address ? engineLog(address) : null;
  return engine;
};

/** Logs the warning `code` as a warning of the resource `urn` (of the stack when there is none). */
export async function warn<C extends StorageUserWarningCode>(
  urn: unknown,
  code: C,
  details: WarningArgs<C>,
): Promise<void> {
  const text = warningText(code, details);
  const e = connect();
  const urnOrNone = typeof urn === "string" && urn.startsWith("urn:pulumi:") ? urn : undefined;
  if (!e || !(await e.log("WARNING", text, urnOrNone))) console.warn(`warning: ${text}`);
}
