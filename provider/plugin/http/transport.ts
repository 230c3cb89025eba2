/** Sending one POST (one pooled undici agent per plugin process) and reading an answer within a size limit. */
import type { Dispatcher } from "undici";
import { defaults } from "../../defaults";
import { quote } from "../../redaction";
import type { createRequest } from "../../wire";

let agent: Dispatcher | undefined;

/** EnvHttpProxyAgent honours HTTP(S)_PROXY and NO_PROXY; NODE_EXTRA_CA_CERTS reaches it through Node's default TLS trust store. */
function sharedAgent(): Dispatcher {
  if (!agent) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use: a program loads this module but never sends
    const { EnvHttpProxyAgent } = require("undici") as typeof import("undici");
    agent = new EnvHttpProxyAgent({ connect: { timeout: defaults.connectTimeoutMs } });
  }
  return agent;
}

export type Request = ReturnType<typeof createRequest>;

/**
 * One POST; headers and body each wait at most the per-attempt timeout, and never past `deadline`
 * as seen at `now` (the retry loop's clock). Throws what undici throws.
 */
export async function post(
  { url, headers, body }: Request,
  deadline: number,
  now: number = Date.now(),
): Promise<Dispatcher.ResponseData> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use: a program loads this module but never sends
  const { request } = require("undici") as typeof import("undici");
  const remaining = deadline - now;
  const perAttempt = Math.max(1, Math.min(defaults.requestTimeoutMs, remaining));
  return request(url, {
    method: "POST",
    headers,
    body,
    dispatcher: sharedAgent(),
    headersTimeout: perAttempt,
    bodyTimeout: perAttempt,
    signal: AbortSignal.timeout(Math.max(1, remaining)),
  });
}

export async function readLimited(
  body: Dispatcher.ResponseData["body"],
  limit: number,
): Promise<{ text: string; truncated: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) {
      chunks.push(chunk.subarray(0, chunk.length - (size - limit)));
      body.destroy();
      return { text: Buffer.concat(chunks).toString("utf8"), truncated: true };
    }
    chunks.push(chunk);
  }
  return { text: Buffer.concat(chunks).toString("utf8"), truncated: false };
}

export function errorCode(err: unknown): string {
  const e = err as { code?: unknown; cause?: { code?: unknown } } | undefined;
  const code = e?.code ?? e?.cause?.code;
  return typeof code === "string" || typeof code === "number" ? String(code) : "";
}

/** A transport error as messages quote it. */
export function describe(err: unknown): string {
  const e = err as { name?: string; message?: string; cause?: { message?: string } } | undefined;
  if (e?.name === "TimeoutError") return "no answer within the create budget (customTimeouts.create)";
  const parts = [errorCode(err), e?.message, e?.cause?.message].filter((p) => p && p !== "undefined");
  return quote([...new Set(parts)].join(": "), 300);
}
