/**
 * What one attempt means for the create: a final outcome, a redirect to follow, or a retry
 * (nothing was created); a definite "nothing was created" refusal is thrown as its error.
 */
import type { Dispatcher } from "undici";
import { defaults } from "../../defaults";
import { StorageUserError } from "../../errors";
import { apiMessage, CreateOutcome, parseAnswer } from "../../wire";
import type { AttemptOutcome } from "./retry";
import { describe, errorCode, readLimited } from "./transport";

export type Verdict =
  | { kind: "done"; outcome: CreateOutcome }
  | { kind: "redirect"; status: number; location: string }
  /** `last` describes the attempt for the error that ends the retries. */
  | { kind: "retry"; outcome: AttemptOutcome; retryAfter?: string; last: string };

/** Error codes raised before a single byte of the request left this machine. */
const NOT_SENT_RETRYABLE = new Set([
  "ECONNREFUSED",
  "UND_ERR_CONNECT_TIMEOUT",
  "EAI_AGAIN",
  "ENETUNREACH",
  "EHOSTUNREACH",
]);
const TLS_CODE = /CERT|SELF_SIGNED|TLS|SSL|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER/;

export const shownUrl = (url: URL) => `${url.origin}${url.pathname}`;

/** The request failed without an answer: never sent (DNS, TLS, refused) or sent with no verdict. */
export function judgeError(err: unknown, url: URL, source = "storage:baseUrl"): Verdict {
  const code = errorCode(err);
  if (code === "ENOTFOUND")
    throw new StorageUserError(
      "UNREACHABLE",
      { problem: "hostNotFound", url: shownUrl(url), detail: describe(err), source },
      { cause: err },
    );
  if (TLS_CODE.test(code))
    throw new StorageUserError(
      "UNREACHABLE",
      { problem: "tls", url: shownUrl(url), detail: describe(err), source },
      { cause: err },
    );
  if (!NOT_SENT_RETRYABLE.has(code))
    return { kind: "done", outcome: { kind: "unknown", detail: describe(err), cause: err } };
  return { kind: "retry", outcome: "unsent", last: describe(err) };
}

/** An HTTP answer, by status. A 2xx means the user exists: whatever its body holds, it is "created" or "unusable". */
/** `token`: the token sent and where it was read from, for the hint of a 401/403. */
export async function judgeResponse(
  res: Dispatcher.ResponseData,
  url: URL,
  userName: string,
  token: { token?: string; source?: string } = {},
): Promise<Verdict> {
  const status = res.statusCode;
  if (status >= 200 && status < 300) {
    let read: { text: string; truncated: boolean };
    try {
      read = await readLimited(res.body, defaults.maxResponseBytes);
    } catch (err) {
      return {
        kind: "done",
        outcome: { kind: "unusable", problems: [`the body could not be read (${describe(err)})`] },
      };
    }
    return { kind: "done", outcome: parseAnswer(read.text, read.truncated) };
  }
  const detail = apiMessage((await readLimited(res.body, 64 * 1024).catch(() => ({ text: "" }))).text);
  const header = (name: string) => {
    const v = res.headers[name];
    return Array.isArray(v) ? v[0] : v;
  };
  if (status >= 300 && status < 400) return { kind: "redirect", status, location: header("location") ?? "" };
  if (status === 401 || status === 403)
    throw new StorageUserError("UNAUTHORIZED", {
      status,
      apiMessage: detail,
      withScheme: /^(bearer|basic|token)\s/i.test(token.token ?? ""),
      source: token.source,
    });
  if (status === 404 || status === 405)
    throw new StorageUserError("ENDPOINT_NOT_FOUND", { status, url: shownUrl(url) });
  if (status === 409) throw new StorageUserError("NAME_TAKEN", { userName, apiMessage: detail });
  if (status !== 429 && status >= 400 && status < 500)
    throw new StorageUserError("REJECTED", { status, apiMessage: detail });
  if (status !== 429 && status !== 503) {
    // 500, 502, 504...: the API or a gateway may have failed after the user was stored.
    return { kind: "done", outcome: { kind: "unknown", detail: `HTTP ${status}${detail ? `: ${detail}` : ""}` } };
  }
  const retryAfter = header("retry-after");
  return {
    kind: "retry",
    outcome: status,
    retryAfter,
    last: `HTTP ${status}${retryAfter ? ` (Retry-After: ${retryAfter})` : ""}${detail ? `: ${detail}` : ""}`,
  };
}
