/**
 * POSTs one create, retrying only what provably created nothing: 429 and 503 (honouring
 * Retry-After) and failures to connect. Same-origin 307/308 are followed; every other
 * redirect is refused so the token never travels to another origin.
 */
import { StorageUserError } from "../../errors";
import { CreateOutcome, createRequest } from "../../wire";
import { judgeError, judgeResponse, shownUrl, Verdict } from "./outcome";
import { redirectTarget } from "./redirect";
import { defaultRetryPolicy, nextDelay, RetryPolicy } from "./retry";
import { post, Request } from "./transport";

export interface CreateUserRequest {
  baseUrl: URL;
  accessToken: string;
  /** Where baseUrl came from (a config key or an environment variable), for the hints in errors. */
  baseUrlSource?: string;
  /** Where accessToken came from, likewise. */
  accessTokenSource?: string;
  userName: string;
  persistPassword: boolean;
  /** Absolute time (ms since epoch) after which no new attempt starts and waiting stops. */
  deadline: number;
}

/**
 * The time and chance the retry loop runs on: the real ones by default; tests pass a fake clock
 * so a Retry-After of seconds costs them no wall-clock time.
 */
export interface Clock {
  /** Milliseconds since the epoch, as Date.now(). */
  now: () => number;
  /** Resolves after `ms` milliseconds of this clock. */
  sleep: (ms: number) => Promise<void>;
  /** The jitter source, as Math.random(). */
  random: () => number;
}

export const realClock: Clock = {
  now: () => Date.now(),
  sleep: (ms) => new Promise<void>((resolve) => setTimeout(resolve, ms)),
  random: () => Math.random(),
};

async function attempt(request: Request, req: CreateUserRequest, source: string, clock: Clock): Promise<Verdict> {
  let res: Awaited<ReturnType<typeof post>>;
  try {
    res = await post(request, req.deadline, clock.now());
  } catch (err) {
    return judgeError(err, request.url, source);
  }
  return judgeResponse(res, request.url, req.userName, {
    token: request.headers.authorization,
    source: req.accessTokenSource,
  });
}

export async function createUser(
  req: CreateUserRequest,
  policy: RetryPolicy = defaultRetryPolicy,
  clock: Clock = realClock,
): Promise<CreateOutcome> {
  const request = createRequest(req.baseUrl, req.accessToken, req);
  const source = req.baseUrlSource ?? "storage:baseUrl";
  let redirects = 0;
  let attempts = 1;
  for (;;) {
    const verdict = await attempt(request, req, source, clock);
    if (verdict.kind === "done") return verdict.outcome;
    if (verdict.kind === "redirect") {
      request.url = redirectTarget(verdict.status, verdict.location, request.url, ++redirects); // a hop is not an attempt
      continue;
    }
    const delay = nextDelay(attempts, verdict.outcome, verdict.retryAfter, policy, clock.now(), clock.random);
    if (delay === "stop" || clock.now() + delay >= req.deadline) {
      if (verdict.outcome === "unsent") {
        throw new StorageUserError("UNREACHABLE", {
          problem: "noConnection",
          url: shownUrl(request.url),
          last: verdict.last,
          attempts,
          source,
        });
      }
      throw new StorageUserError("RETRIES_EXHAUSTED", { attempts, last: verdict.last });
    }
    await clock.sleep(delay);
    attempts++;
  }
}
