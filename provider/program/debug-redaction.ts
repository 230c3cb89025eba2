import type * as pulumi from "@pulumi/pulumi";

/**
 * Works around @pulumi/pulumi runtime/resource.js (3.139 to 3.270 at least): its debug lines
 * `RegisterResource RPC finished: … resp: ${innerResponse}` (and ReadResource's) stringify the
 * resource's outputs with secret values in plain text: `pulumi up --debug` would print every
 * credential a StorageUser holds (and a StackReference to its stack). The SDK looks `log.debug`
 * up on the log module at each call, so wrapping it here cuts those dumps from the program's
 * debug output; the rest of each line, and every other debug line, is kept.
 */
const RESPONSE_DUMP = /^((?:RegisterResource|ReadResource|getResource Invoke) RPC finished: [\s\S]*?), resp: [\s\S]*$/;
const MARK = Symbol.for("pulumi-storage-user.debug-redaction");

export function redactResponseDumps(log: typeof pulumi.log): void {
  const target = log as unknown as { debug: typeof pulumi.log.debug & { [MARK]?: true } };
  if (target.debug[MARK]) return;
  const original = target.debug;
  const debug = ((msg: string, ...rest: unknown[]) =>
    (original as (...a: unknown[]) => Promise<void>)(
      typeof msg === "string" ? msg.replace(RESPONSE_DUMP, "$1, resp: [omitted: holds secret values]") : msg,
      ...rest,
    )) as typeof original & { [MARK]?: true };
  debug[MARK] = true;
  target.debug = debug;
}
