/**
 * POSTs one create, retrying only what provably created nothing: 429 and 503 (honouring
 * Retry-After) and failures to connect. Same-origin 307/308 are followed; every other
 * redirect is refused so the token never travels to another origin.
 */
import { RetriesExhaustedError, UnreachableError } from "../../errors";
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

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

async function attempt(request: Request, req: CreateUserRequest, source: string): Promise<Verdict> {
  let res: Awaited<ReturnType<typeof post>>;
  try {
    res = await post(request, req.deadline);
  } catch (err) {
    return judgeError(err, request.url, source);
  }
  return judgeResponse(res, request.url, req.userName, { token: request.headers.authorization, source: req.accessTokenSource });
}

export async function createUser(req: CreateUserRequest, policy: RetryPolicy = defaultRetryPolicy): Promise<CreateOutcome> {
  const request = createRequest(req.baseUrl, req.accessToken, req);
  const source = req.baseUrlSource ?? "storage:baseUrl";
  let redirects = 0;
  let attempts = 1;
  for (;;) {
    const verdict = await attempt(request, req, source);
    if (verdict.kind === "done") return verdict.outcome;
    if (verdict.kind === "redirect") {
      request.url = redirectTarget(verdict.status, verdict.location, request.url, ++redirects); // a hop is not an attempt
      continue;
    }
    const delay = nextDelay(attempts, verdict.outcome, verdict.retryAfter, policy);
    if (delay === "stop" || Date.now() + delay >= req.deadline) {
      if (verdict.outcome === "unsent") {
        throw new UnreachableError(shownUrl(request.url), `${verdict.last}, after ${attempts} attempt(s)`, `check that the API is up and ${source} is right`);
      }
      throw new RetriesExhaustedError(attempts, verdict.last);
    }
    await sleep(delay);
    attempts++;
  }
}
