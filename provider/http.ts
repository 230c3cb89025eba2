import type { Dispatcher } from "undici";
import { defaults } from "./defaults";
import {
  EndpointNotFoundError,
  NameTakenError,
  RedirectRefusedError,
  redact,
  RejectedError,
  RetriesExhaustedError,
  UnauthorizedError,
  UnreachableError,
} from "./errors";
import { CreatedUser, parseCreatedUser, salvageUserId } from "./response";
import { AttemptOutcome, defaultRetryPolicy, nextDelay, RetryPolicy } from "./retry";
import { createUrl } from "./settings";

export interface CreateUserRequest {
  baseUrl: URL;
  accessToken: string;
  userName: string;
  persistPassword: boolean;
  /** Absolute time (ms since epoch) after which no new attempt starts and waiting stops. */
  deadline: number;
}

/**
 * How a create ended when it did not end in a definite "nothing was created" error
 * (those are thrown as StorageUserError subclasses).
 */
export type CreateOutcome =
  | { kind: "created"; user: CreatedUser }
  /** 2xx, so the user exists, but the answer cannot be used; userId when it could be read. */
  | { kind: "unusable"; userId?: number; problems: string[] }
  /** The request was sent and no verdict came back: a user may or may not exist. */
  | { kind: "unknown"; detail: string; cause?: unknown };

let agent: Dispatcher | undefined;

/**
 * One pooled agent per plugin process. EnvHttpProxyAgent honours HTTP(S)_PROXY and NO_PROXY;
 * NODE_EXTRA_CA_CERTS reaches it through Node's default TLS trust store.
 */
function sharedAgent(): Dispatcher {
  if (!agent) {
    const { EnvHttpProxyAgent } = require("undici") as typeof import("undici");
    agent = new EnvHttpProxyAgent({ connect: { timeout: defaults.connectTimeoutMs } });
  }
  return agent;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Error codes raised before a single byte of the request left this machine. */
const NOT_SENT_RETRYABLE = new Set(["ECONNREFUSED", "UND_ERR_CONNECT_TIMEOUT", "EAI_AGAIN", "ENETUNREACH", "EHOSTUNREACH"]);
const TLS_CODE = /CERT|SELF_SIGNED|TLS|SSL|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER/;

function errorCode(err: unknown): string {
  const e = err as { code?: unknown; cause?: { code?: unknown } } | undefined;
  return String(e?.code ?? e?.cause?.code ?? "");
}

function describe(err: unknown, secrets: string[]): string {
  const e = err as { name?: string; message?: string; cause?: { message?: string } } | undefined;
  if (e?.name === "TimeoutError") return "no answer within the create budget (customTimeouts.create)";
  const parts = [errorCode(err), e?.message, e?.cause?.message].filter((p) => p && p !== "undefined");
  return redact([...new Set(parts)].join(": ").slice(0, 300), secrets);
}

/** The API's own error text, from `{error:{message}}`, `{message}`, `{error}` or plain text. */
function apiMessage(text: string, secrets: string[]): string {
  let msg = text;
  try {
    const j = JSON.parse(text) as { error?: { message?: unknown } | string; message?: unknown };
    const candidate = typeof j.error === "object" ? j.error?.message : j.error ?? j.message;
    if (typeof candidate === "string") msg = candidate;
  } catch {
    // not JSON: quote the text itself
  }
  return redact(msg.replace(/\s+/g, " ").trim().slice(0, 300), secrets);
}

async function readLimited(body: Dispatcher.ResponseData["body"], limit: number): Promise<{ text: string; truncated: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
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

/** A 2xx means the user exists; whatever the body holds, it is "created" or "unusable". */
async function readCreated(res: Dispatcher.ResponseData, secrets: string[]): Promise<CreateOutcome> {
  let read: { text: string; truncated: boolean };
  try {
    read = await readLimited(res.body, defaults.maxResponseBytes);
  } catch (err) {
    return { kind: "unusable", problems: [`the body could not be read (${describe(err, secrets)})`] };
  }
  if (read.truncated) {
    return { kind: "unusable", userId: salvageUserId(read.text), problems: [`the body is larger than ${defaults.maxResponseBytes} bytes`] };
  }
  let json: unknown;
  try {
    json = JSON.parse(read.text);
  } catch {
    return { kind: "unusable", userId: salvageUserId(read.text), problems: ["the body is not valid JSON"] };
  }
  const parsed = parseCreatedUser(json);
  return parsed.ok ? { kind: "created", user: parsed.user } : { kind: "unusable", userId: parsed.userId, problems: parsed.problems };
}

/** Only same-origin 307/308 keep the POST and the token where they belong. */
function redirectTarget(status: number, location: string, from: URL, hop: number, secrets: string[]): URL {
  let target: URL | undefined;
  try {
    target = new URL(location, from);
  } catch {
    target = undefined;
  }
  const shown = target ? `${target.origin}${target.pathname}` : redact(location.slice(0, 200), secrets);
  if (!target || target.origin !== from.origin) throw new RedirectRefusedError(status, shown, "another origin");
  if (status !== 307 && status !== 308) throw new RedirectRefusedError(status, shown, "it would turn the POST into a GET");
  if (hop > defaults.maxRedirects) throw new RedirectRefusedError(status, shown, `more than ${defaults.maxRedirects} redirects`);
  return target;
}

/**
 * POSTs one create, retrying only what provably created nothing: 429 and 503 (honouring
 * Retry-After) and failures to connect. Same-origin 307/308 are followed; every other
 * redirect is refused so the token never travels to another origin.
 */
export async function createUser(req: CreateUserRequest, policy: RetryPolicy = defaultRetryPolicy): Promise<CreateOutcome> {
  const { request } = require("undici") as typeof import("undici");
  const secrets = [req.accessToken];
  const body = JSON.stringify({ UserName: req.userName, PersistPassword: req.persistPassword ? 1 : 0 });
  let url = createUrl(req.baseUrl);
  let redirects = 0;

  for (let attempt = 1; ; attempt++) {
    const remaining = req.deadline - Date.now();
    let outcome: AttemptOutcome | undefined;
    let retryAfter: string | undefined;
    let last = "";
    let res: Dispatcher.ResponseData | undefined;
    try {
      res = await request(url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          authorization: req.accessToken,
          accept: "application/json",
          "user-agent": "pulumi-storage-user",
        },
        body,
        dispatcher: sharedAgent(),
        headersTimeout: Math.max(1, Math.min(defaults.requestTimeoutMs, remaining)),
        bodyTimeout: Math.max(1, Math.min(defaults.requestTimeoutMs, remaining)),
        signal: AbortSignal.timeout(Math.max(1, remaining)),
      });
    } catch (err) {
      const code = errorCode(err);
      const shownUrl = `${url.origin}${url.pathname}`;
      if (code === "ENOTFOUND") {
        throw new UnreachableError(shownUrl, describe(err, secrets), "check the host name in storage:baseUrl", err);
      }
      if (TLS_CODE.test(code)) {
        throw new UnreachableError(
          shownUrl,
          `TLS handshake failed: ${describe(err, secrets)}`,
          "if the API uses a private CA, point NODE_EXTRA_CA_CERTS at its certificate; otherwise check storage:baseUrl",
          err,
        );
      }
      if (!NOT_SENT_RETRYABLE.has(code)) {
        return { kind: "unknown", detail: describe(err, secrets), cause: err };
      }
      outcome = "unsent";
      last = describe(err, secrets);
    }

    if (res) {
      const status = res.statusCode;
      const headers = res.headers;
      const header = (name: string) => {
        const v = headers[name];
        return Array.isArray(v) ? v[0] : v;
      };

      if (status >= 200 && status < 300) return readCreated(res, secrets);

      const detail = apiMessage((await readLimited(res.body, 64 * 1024).catch(() => ({ text: "" }))).text, secrets);

      if (status >= 300 && status < 400) {
        url = redirectTarget(status, header("location") ?? "", url, ++redirects, secrets);
        attempt--;
        continue;
      }
      if (status === 401 || status === 403) throw new UnauthorizedError(status, detail);
      if (status === 404 || status === 405) throw new EndpointNotFoundError(status, `${url.origin}${url.pathname}`);
      if (status === 409) throw new NameTakenError(req.userName, detail);
      if (status !== 429 && status >= 400 && status < 500) throw new RejectedError(status, detail);
      if (status !== 429 && status !== 503) {
        // 500, 502, 504...: the API or a gateway may have failed after the user was stored.
        return { kind: "unknown", detail: `HTTP ${status}${detail ? `: ${detail}` : ""}` };
      }
      outcome = status;
      retryAfter = header("retry-after");
      last = `HTTP ${status}${retryAfter ? ` (Retry-After: ${retryAfter})` : ""}${detail ? `: ${detail}` : ""}`;
    }

    const delay = nextDelay(attempt, outcome!, retryAfter, policy);
    if (delay === "stop" || Date.now() + delay >= req.deadline) {
      if (outcome === "unsent") {
        throw new UnreachableError(`${url.origin}${url.pathname}`, `${last}, after ${attempt} attempt(s)`, "check that the API is up and storage:baseUrl is right");
      }
      throw new RetriesExhaustedError(attempt, last);
    }
    await sleep(delay);
  }
}
