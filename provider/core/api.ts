// The API's one call, `POST {baseUrl}/storage/users`: request, pooled agent, bounded read, what each answer
// means, the retry policy and the parsing. Only what provably created nothing is retried: 429, 503, unsent.
import type { Dispatcher } from "undici";
import { defaults } from "../defaults";
import { CreatedUser, fields, isObject, parseJson, Task } from "../model";
import { redact, StorageUserError } from "../messages";
import type { Resolved } from "../config";

/** How a create ended, unless it definitely created nothing (that is thrown as a StorageUserError). */
export type CreateResult =
  | { kind: "created"; user: CreatedUser }
  /** 2xx, so the user exists, but the answer cannot be used; `userId` when it could be read. */
  | { kind: "unusable"; userId?: number; problems: string[] }
  /** Sent, and no verdict came back: a user may or may not exist. */
  | { kind: "unknown"; detail: string; cause?: unknown };

/** An attempt that created nothing: its status, or "unsent" (it never reached the API). */
type Outcome = number | "unsent";

/** A Retry-After header in ms: seconds or an HTTP date; undefined when absent or unreadable. */
const retryAfterMs = (text: string | undefined, now: number) => {
  const ms = !text?.trim() ? NaN : /^\d+$/.test(text.trim()) ? Number(text.trim()) * 1000 : Date.parse(text) - now;
  return Number.isNaN(ms) ? undefined : Math.max(0, ms);
};

/** The delay before attempt `attempt + 1`, or "stop"; a Retry-After is a floor plus jitter, so parallel creates do not return in lockstep. */
export function retryDelay(
  attempt: number,
  outcome: Outcome,
  retryAfter?: string,
  now = Date.now(),
  random = Math.random,
) {
  if (![429, 503, "unsent"].includes(outcome)) return "stop";
  if (attempt >= (outcome === "unsent" ? defaults.maxUnsentAttempts : defaults.maxAttempts)) return "stop";
  const backoff = Math.min(defaults.maxRetryDelayMs, defaults.retryBaseDelayMs * 2 ** (attempt - 1));
  const asked = retryAfterMs(retryAfter, now);
  return Math.round(
    asked === undefined
      ? backoff / 2 + random() * (backoff / 2)
      : asked + random() * Math.max(defaults.retryBaseDelayMs, asked / 2),
  );
}

// The retry loop's time and chance: tests pass a fake clock, so a Retry-After costs them no time.
export type Clock = { now: () => number; sleep: (ms: number) => Promise<unknown>; random: () => number };
const realClock: Clock = {
  now: Date.now,
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  random: Math.random,
};

// The API's rate as one provider process learns it, shared by its creates: a 429 pauses them all for its Retry-After and
// sets the pace to the creates accepted in the last second; each accepted one raises it a little (docs/configuration.md).
export function pace(clock: Clock) {
  let [gapMs, next, until, accepted] = [0, 0, 0, [] as number[]];
  const lastSecond = (now: number) => (accepted = accepted.filter((t) => t > now - 1000));
  return {
    /** When the next attempt may be sent: its turn, after any pause. */
    turn() {
      const at = Math.max(clock.now(), next, until);
      next = at + gapMs;
      return at;
    },
    accepted() {
      lastSecond(clock.now()).push(clock.now());
      if (gapMs) gapMs = 1000 / (1000 / gapMs + defaults.paceRisePerCreate);
    },
    throttled(pauseMs: number) {
      until = Math.max(until, clock.now() + pauseMs);
      gapMs = 1000 / Math.max(1, lastSecond(clock.now()).length);
    },
  };
}

/** What one provider process shares between its creates: time, the pace and the connection pool. */
export type Client = { clock: Clock; pace: ReturnType<typeof pace>; agent?: Dispatcher };
export const newClient = (clock = realClock): Client => ({ clock, pace: pace(clock) });

interface CreateRequest extends Partial<Pick<Resolved, "baseUrlSource" | "accessTokenSource">> {
  baseUrl: URL;
  accessToken: string;
  userName: string;
  persistPassword: boolean;
  deadline: number;
}

// eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use, in the plugin only
const undici = () => require("undici") as typeof import("undici");

const HEADERS = { "content-type": "application/json", accept: "application/json", "user-agent": "pulumi-storage-user" };
const NOT_SENT = new Set(["ECONNREFUSED", "UND_ERR_CONNECT_TIMEOUT", "EAI_AGAIN", "ENETUNREACH", "EHOSTUNREACH"]);
const TLS = /CERT|SELF_SIGNED|TLS|SSL|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER/;
const shown = (url: URL) => `${url.origin}${url.pathname}`;
type Coded = { code?: unknown; cause?: { code?: unknown } } | undefined;
const codeOf = (e: unknown) => [(e as Coded)?.code, (e as Coded)?.cause?.code].find((c) => typeof c === "string") ?? "";

function describe(err: unknown): string {
  const e = err as { name?: string; message?: string; cause?: { message?: string } } | undefined;
  if (e?.name === "TimeoutError") return "no answer within the create budget (customTimeouts.create)";
  const parts = [codeOf(err), e?.message, e?.cause?.message].filter((p) => p && p !== "undefined");
  return redact([...new Set(parts)].join(": ").replace(/\s+/g, " ")).slice(0, 300);
}

async function readLimited(body: Dispatcher.ResponseData["body"], limit: number) {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    size += chunk.length;
    chunks.push(size > limit ? chunk.subarray(0, chunk.length - (size - limit)) : chunk);
    if (size > limit) {
      body.destroy();
      break;
    }
  }
  return { text: Buffer.concat(chunks).toString("utf8"), truncated: size > limit };
}

// The API's own error text, from `{error:{message}}`, `{message}`, `{error}` or plain text.
function apiMessage(text: string): string {
  const j = parseJson<{ error?: { message?: unknown } | string; message?: unknown }>(text);
  const m = typeof j?.error === "object" ? j.error?.message : (j?.error ?? j?.message);
  return redact((typeof m === "string" ? m : text).replace(/\s+/g, " ").trim()).slice(0, 300);
}

type Attempt = CreateResult | { kind: "retry"; outcome: Outcome; retryAfter?: string; last: string };

// One POST and what its answer means; a definite "nothing was created" is thrown.
async function attempt(req: CreateRequest, url: URL, body: string, source: string, client: Client): Promise<Attempt> {
  let res: Dispatcher.ResponseData;
  try {
    const remaining = req.deadline - Date.now();
    const perAttempt = Math.max(1, Math.min(defaults.requestTimeoutMs, remaining));
    client.agent ??= new (undici().EnvHttpProxyAgent)({ connect: { timeout: defaults.connectTimeoutMs } });
    res = await undici().request(url, {
      method: "POST",
      headers: { ...HEADERS, authorization: req.accessToken },
      body,
      dispatcher: client.agent,
      headersTimeout: perAttempt,
      bodyTimeout: perAttempt,
      signal: AbortSignal.timeout(Math.max(1, remaining)),
    });
  } catch (err) {
    const code = codeOf(err);
    const d = { url: shown(url), detail: describe(err), source };
    const problem = code === "ENOTFOUND" ? "hostNotFound" : TLS.test(code) ? "tls" : undefined;
    if (problem) throw new StorageUserError("UNREACHABLE", { problem, ...d }, { cause: err });
    if (NOT_SENT.has(code)) return { kind: "retry", outcome: "unsent", last: d.detail };
    return { kind: "unknown", detail: d.detail, cause: err };
  }
  const status = res.statusCode;
  // A 2xx means the user exists: whatever its body holds, it is "created" or "unusable".
  if (status >= 200 && status < 300) {
    try {
      return parseAnswer(await readLimited(res.body, defaults.maxResponseBytes));
    } catch (err) {
      return { kind: "unusable", problems: [`the body could not be read (${describe(err)})`] };
    }
  }
  const detail = apiMessage((await readLimited(res.body, 64 * 1024).catch(() => ({ text: "" }))).text);
  const header = (name: string) => [res.headers[name]].flat()[0];
  if (status >= 300 && status < 400) {
    const location = header("location") ?? "";
    const target = URL.canParse(location, url.href) ? shown(new URL(location, url)) : redact(location).slice(0, 200);
    throw new StorageUserError("REDIRECT_REFUSED", { status, location: target, source });
  }
  const withScheme = /^(bearer|basic|token)\s/i.test(req.accessToken);
  if (status === 401 || status === 403)
    throw new StorageUserError("UNAUTHORIZED", {
      status,
      apiMessage: detail,
      withScheme,
      source: req.accessTokenSource,
    });
  if (status === 404 || status === 405)
    throw new StorageUserError("ENDPOINT_NOT_FOUND", { status, url: shown(url), source });
  if (status === 409) throw new StorageUserError("NAME_TAKEN", { userName: req.userName, apiMessage: detail });
  if (status !== 429 && status >= 400 && status < 500)
    throw new StorageUserError("REJECTED", { status, apiMessage: detail });
  // 500, 502, 504…: the API or a gateway may have failed after the user was stored.
  if (status !== 429 && status !== 503)
    return { kind: "unknown", detail: `HTTP ${status}${detail ? `: ${detail}` : ""}` };
  const retryAfter = header("retry-after");
  const last = `HTTP ${status}${retryAfter ? ` (Retry-After: ${retryAfter})` : ""}${detail ? `: ${detail}` : ""}`;
  return { kind: "retry", outcome: status, retryAfter, last };
}

/** POSTs one create at the client's pace, retrying what created nothing until the policy stops or the deadline nears. */
export async function createUser(req: CreateRequest, client: Client = newClient()): Promise<CreateResult> {
  const { clock, pace } = client;
  const url = new URL(req.baseUrl.href);
  url.pathname = `${url.pathname.replace(/\/+$/, "")}/storage/users`;
  const body = JSON.stringify({ UserName: req.userName, PersistPassword: req.persistPassword ? 1 : 0 });
  const source = req.baseUrlSource ?? "storage:baseUrl";
  const exhausted = (attempts: number, outcome: Outcome, last: string) => {
    const unsent = { problem: "noConnection", url: shown(url), detail: last, attempts, source } as const;
    return outcome === "unsent"
      ? new StorageUserError("UNREACHABLE", unsent)
      : new StorageUserError("RETRIES_EXHAUSTED", { attempts, last });
  };
  let last: Extract<Attempt, { kind: "retry" }> = { kind: "retry", outcome: 429, last: "none sent: the API's pace" };
  for (let attempts = 1; ; attempts++) {
    const at = pace.turn();
    if (at >= req.deadline) throw exhausted(attempts - 1, last.outcome, last.last);
    if (at > clock.now()) await clock.sleep(at - clock.now());
    const result = await attempt(req, url, body, source, client);
    if (result.kind !== "retry") {
      if (result.kind !== "unknown") pace.accepted();
      return result;
    }
    last = result;
    const delay = retryDelay(attempts, result.outcome, result.retryAfter, clock.now(), clock.random);
    if (delay === "stop" || clock.now() + delay >= req.deadline) throw exhausted(attempts, result.outcome, result.last);
    if (result.outcome === 429) pace.throttled(retryAfterMs(result.retryAfter, clock.now()) ?? delay);
    else await clock.sleep(delay);
  }
}

type Obj = Record<string, unknown>;
// `Id` is "number" in the spec; a string of digits is accepted too (JSON encoders differ).
const asInt = (v: unknown) =>
  Number.isSafeInteger(v) || (typeof v === "string" && /^\d{1,15}$/.test(v)) ? Number(v) : undefined;

/** A 2xx answer's body (cut at maxResponseBytes when `truncated`), read field by field against the table. */
export function parseAnswer({ text, truncated }: { text: string; truncated: boolean }): CreateResult {
  // Best effort on a body that is no JSON: the Id, if it is there, still identifies the user.
  const salvaged = () => asInt(/"Id"\s*:\s*"?(\d{1,15})"?\s*[,}\s]/.exec(text)?.[1]);
  const unusable = (problem: string): CreateResult => ({ kind: "unusable", userId: salvaged(), problems: [problem] });
  if (truncated) return unusable(`the body is larger than ${defaults.maxResponseBytes} bytes`);
  const body = parseJson<unknown>(text);
  if (body === undefined) return unusable("the body is not valid JSON");
  if (!isObject(body)) return { kind: "unusable", problems: ["the body is not a JSON object"] };
  const problems: string[] = [];
  const nonEmpty = (o: unknown, field: string, path: string): string => {
    const v = isObject(o) ? o[field] : undefined;
    if (typeof v === "string" && v !== "") return v;
    problems.push(`${path} ${v === undefined ? "is missing" : "is not a non-empty string"}`);
    return "";
  };
  const user: Obj = {};
  for (const { conn, name, api } of fields) {
    const [member] = api;
    if (conn && !isObject(body[member]) && !problems.some((p) => p.startsWith(`${member} `)))
      problems.push(`${member} ${body[member] === undefined ? "is missing" : "is not an object"}`);
    const [target, within, field] = conn ? [(user[conn] ??= {}) as Obj, body[member], api[1]] : [user, body, member];
    target[name] = isObject(within) ? nonEmpty(within, field, api.join(".")) : "";
  }
  const userId = asInt(body.Id);
  if (userId === undefined) problems.push(body.Id === undefined ? "Id is missing" : "Id is not an integer");
  // The spec describes Tasks as an object but shows an array: both are accepted, and its absence tolerated.
  const tasks: Task[] = [body.Tasks ?? []].flat().map((t: unknown, i) => {
    const at = `Tasks[${i}]`;
    const id = isObject(t) ? asInt(t.Id) : undefined;
    const progress = isObject(t) ? t.ProgressPercent : undefined;
    if (id === undefined) problems.push(`${at}.Id is missing or not an integer`);
    if (typeof progress !== "number") problems.push(`${at}.ProgressPercent is missing or not a number`);
    const [type, state, startDate] = ["Type", "State", "StartDate"].map((f) => nonEmpty(t, f, `${at}.${f}`));
    return { id: id ?? 0, progressPercent: typeof progress === "number" ? progress : 0, type, state, startDate };
  });
  if (problems.length > 0) return { kind: "unusable", userId, problems };
  return { kind: "created", user: { ...user, userId: userId!, tasks } as CreatedUser };
}
