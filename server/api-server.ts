/**
 * A local implementation of the storage API's one operation, `POST /storage/users`, as
 * ../shared/spec describes it, plus what the spec leaves open, decided in docs/local-api.md
 * (status codes, error body, name rules). Tests script failures into it and count users.
 */
import { randomBytes } from "node:crypto";
import { randomSecret } from "./tokens";
import * as http from "node:http";
import * as https from "node:https";
import type { AddressInfo } from "node:net";

export interface StoredUser {
  Id: number;
  Name: string;
  Password: string;
  PersistPassword: number;
  SwiftApiConnection: { Endpoint: string; TenantId: string; AccessKey: string; Password: string };
  S3Connection: { Endpoint: string; AccessKey: string; SecretKey: string };
  FtpConnection: { HostName: string; Login: string; Password: string };
  State: string;
  Tasks: { Id: number; ProgressPercent: number; Type: string; State: string; StartDate: string }[];
}

/** One scripted misbehaviour, applied to the next POST /storage/users and then dropped. */
export type Fault =
  /** Answer `status` (with Retry-After/body if given); creates the user first when `create`. */
  | { kind: "status"; status: number; retryAfter?: string; body?: string; create?: boolean }
  /** Destroy the socket without an answer, before or after storing the user. */
  | { kind: "drop"; after: "create" | "nothing" }
  /** Store the user, then answer 200 with a body cut mid-way (with or without the Id in it). */
  | { kind: "garbled"; withId: boolean }
  /** Store the user, then answer 200 without these fields (dot paths: "S3Connection.SecretKey"). */
  | { kind: "incomplete"; omit: readonly string[] }
  /** Store the user, then answer 200 with a body of about `bytes` bytes. */
  | { kind: "oversized"; bytes: number }
  /** Wait `ms` before answering; the user is stored before the wait. */
  | { kind: "slow"; ms: number }
  /** Answer a redirect to `location` without storing anything. */
  | { kind: "redirect"; status: number; location: string }
  /** Store the user, then answer 200 with `transform(user)` as the body (shape variations). */
  | { kind: "reshape"; transform: (user: StoredUser) => unknown };

export interface RequestRecord {
  method: string;
  path: string;
  status: number;
  contentType?: string;
  /** Whether an Authorization header came at all, and whether it matched the token. */
  hadAuthorization: boolean;
  authorized: boolean;
  body: string;
  fault?: Fault["kind"];
}

/** Servers on which real mode creates every user (server/real-backends.ts starts them). */
export interface UserBackends {
  /** `http://127.0.0.1:<port>`: what S3Connection.Endpoint holds. */
  readonly s3Endpoint: string;
  /** `127.0.0.1:<port>`: what FtpConnection.HostName holds (the spec has no separate port). */
  readonly ftpHostName: string;
  /** Creates an S3 account (role userplus: it may create buckets). */
  createS3Account(accessKey: string, secretKey: string): Promise<void>;
  /** Adds an FTP login; it can log in from the next connection on. */
  addFtpUser(login: string, password: string): void;
  /** Keystone + Swift, where they run here (server/swift-backend.ts). */
  readonly swift?: {
    /** Keystone's v3 URL: what SwiftApiConnection.Endpoint holds. */
    readonly authUrl: string;
    /** Creates the user in a project of its own; resolves to the project id (TenantId). */
    createUser(name: string, password: string): Promise<string>;
  };
  close(): Promise<void>;
}

export interface ApiServerOptions {
  /** The token every request must carry as `Authorization: <token>`. */
  token: string;
  port?: number;
  /** Added to every answer, before faults. */
  latencyMs?: number;
  /** Token bucket: at most `perSecond` creates a second; the rest get 429 + Retry-After. */
  rateLimit?: { perSecond: number; retryAfterSeconds?: number };
  /** The rate limit's clock, ms (default Date.now): a test holds it still so a slow machine refills nothing. */
  now?: () => number;
  /** Serve HTTPS with this key pair instead of HTTP. */
  tls?: { key: string | Buffer; cert: string | Buffer };
  /** Domain used in the generated endpoints. */
  domain?: string;
  /** Accept a UserName that is already taken (the spec states no uniqueness rule); default: 409. */
  allowDuplicateNames?: boolean;
  /**
   * Real mode: every user is also created on these servers (server/real-backends.ts), and its
   * S3 endpoint and FTP host are theirs. Without it, credentials are made-up strings.
   */
  backends?: UserBackends;
  /**
   * Wait this long after storing each created user before answering (after `latencyMs`): the
   * user exists on the service while its create is still in flight, as on a slow real service.
   * The force-stop test kills the CLI in that window. A function gets the create's ordinal (1 for
   * the first user stored), so a test can let the first creates through and hold the rest.
   */
  createDelayMs?: number | ((ordinal: number) => number);
}

export interface ApiServer {
  /** Base URL to configure as storage:baseUrl, e.g. http://127.0.0.1:40123 */
  readonly url: string;
  readonly port: number;
  readonly users: readonly StoredUser[];
  readonly requests: readonly RequestRecord[];
  /** Creates stored whose answer has not been sent yet (see `createDelayMs`). */
  readonly createsInFlight: number;
  /** POSTs to /storage/users received, whatever their outcome. */
  readonly createAttempts: number;
  /** Queue faults for the next creates, in order. */
  inject(...faults: Fault[]): void;
  setLatency(ms: number): void;
  /** Replaces `createDelayMs` for the creates from now on. */
  setCreateDelay(ms: number): void;
  close(): Promise<void>;
}

const secret = randomSecret;
const upperKey = (len = 20) => Array.from(randomBytes(len), (b) => "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"[b % 32]).join("");

/** `YYYY-MM-DDThh:mm:ss.fff`, no zone designator, as the spec shows (UTC). */
const startDate = (d = new Date()) => d.toISOString().slice(0, 23);

function sendJson(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text), ...headers });
  res.end(text);
}

const apiError = (
  res: http.ServerResponse,
  status: number,
  code: string,
  message: string,
  headers?: Record<string, string>,
) => sendJson(res, status, { error: { code, message } }, headers);

function omitPath(obj: Record<string, unknown>, path: string) {
  const parts = path.split(".");
  let cur: Record<string, unknown> | undefined = obj;
  for (const p of parts.slice(0, -1)) cur = cur?.[p] as Record<string, unknown> | undefined;
  if (cur) delete cur[parts[parts.length - 1]];
}

export async function startApiServer(options: ApiServerOptions): Promise<ApiServer> {
  const users: StoredUser[] = [];
  const requests: RequestRecord[] = [];
  const faults: Fault[] = [];
  const names = new Set<string>();
  const domain = options.domain ?? "storage.test";
  let latencyMs = options.latencyMs ?? 0;
  let createAttempts = 0;
  let inFlight = 0;
  let createDelay = options.createDelayMs ?? 0;
  let nextUserId = 1000 + Math.floor(Math.random() * 1000);
  let nextTaskId = 50_000;
  const clock = options.now ?? Date.now;
  const bucket = { tokens: options.rateLimit?.perSecond ?? 0, at: clock() };

  function takeRateToken(): boolean {
    const limit = options.rateLimit;
    if (!limit) return true;
    const now = clock();
    bucket.tokens = Math.min(limit.perSecond, bucket.tokens + ((now - bucket.at) / 1000) * limit.perSecond);
    bucket.at = now;
    if (bucket.tokens < 1) return false;
    bucket.tokens -= 1;
    return true;
  }

  async function store(userName: string, persist: number): Promise<StoredUser> {
    const user: StoredUser = {
      Id: nextUserId++,
      Name: userName,
      Password: secret(),
      PersistPassword: persist,
      SwiftApiConnection: {
        Endpoint: `https://swift.${domain}/v1`,
        TenantId: randomBytes(16).toString("hex"),
        AccessKey: upperKey(),
        Password: secret(),
      },
      S3Connection: { Endpoint: `https://s3.${domain}`, AccessKey: upperKey(), SecretKey: secret(30) },
      FtpConnection: { HostName: `ftp.${domain}`, Login: `ftp_${randomBytes(6).toString("hex")}`, Password: secret() },
      State: "New",
      Tasks: [
        { Id: nextTaskId++, ProgressPercent: 0, Type: "StorageUserCreate", State: "New", StartDate: startDate() },
      ],
    };
    const real = options.backends;
    if (real) {
      // Secrets with the characters real ones have (AWS keys are base64: `+` `/`), and an FTP
      // password with URL-reserved ones, so an encoding slip in `ftpUrl` or `env` cannot pass.
      user.S3Connection.SecretKey = randomBytes(30).toString("base64");
      user.FtpConnection.Password = `${secret(18)}@:/%#?`;
      user.S3Connection.Endpoint = real.s3Endpoint;
      user.FtpConnection.HostName = real.ftpHostName;
      await real.createS3Account(user.S3Connection.AccessKey, user.S3Connection.SecretKey);
      real.addFtpUser(user.FtpConnection.Login, user.FtpConnection.Password);
      if (real.swift) {
        // Mapping, and why: docs/real-servers.md "Swift".
        const login = `swift_${randomBytes(6).toString("hex")}`;
        const tenantId = await real.swift.createUser(login, user.SwiftApiConnection.Password);
        user.SwiftApiConnection = {
          Endpoint: real.swift.authUrl,
          TenantId: tenantId,
          AccessKey: login,
          Password: user.SwiftApiConnection.Password,
        };
      }
    }
    users.push(user);
    names.add(userName);
    return user;
  }

  async function handle(req: http.IncomingMessage, res: http.ServerResponse, record: RequestRecord) {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const c of req as AsyncIterable<Buffer>) {
      size += c.length;
      if (size <= 64 * 1024) chunks.push(c);
    }
    record.body = Buffer.concat(chunks).toString("utf8");
    if (latencyMs > 0) await new Promise((r) => setTimeout(r, latencyMs));

    const path = new URL(req.url ?? "/", "http://x").pathname;
    if (path !== "/storage/users") return apiError(res, 404, "not_found", `no route ${req.method} ${path}`);
    if (req.method !== "POST")
      return apiError(res, 405, "method_not_allowed", "only POST is supported", { allow: "POST" });
    createAttempts++;

    const fault = faults.shift();
    record.fault = fault?.kind;
    if (fault?.kind === "redirect") {
      res.writeHead(fault.status, { location: fault.location, "content-length": 0 });
      return res.end();
    }
    if (fault?.kind === "drop" && fault.after === "nothing") return req.socket.destroy();

    const auth = req.headers.authorization;
    if (auth === undefined) return apiError(res, 401, "unauthorized", "the Authorization header is missing");
    if (auth !== options.token) return apiError(res, 403, "forbidden", "the access token is not valid");
    if (!/^application\/json\b/i.test(req.headers["content-type"] ?? "")) {
      return apiError(res, 415, "unsupported_media_type", "Content-Type must be application/json");
    }
    if (size > 64 * 1024) return apiError(res, 413, "too_large", "the body exceeds 64 KiB");
    if (!takeRateToken()) {
      const after = String(options.rateLimit?.retryAfterSeconds ?? 1);
      return apiError(res, 429, "rate_limited", "too many requests", { "retry-after": after });
    }
    if (fault?.kind === "status" && !fault.create) {
      res.writeHead(fault.status, {
        "content-type": "application/json",
        ...(fault.retryAfter ? { "retry-after": fault.retryAfter } : {}),
      });
      return res.end(
        fault.body ?? JSON.stringify({ error: { code: "injected", message: `injected ${fault.status}` } }),
      );
    }

    let body: unknown;
    try {
      body = JSON.parse(record.body);
    } catch {
      return apiError(res, 400, "invalid_json", "the body is not valid JSON");
    }
    if (typeof body !== "object" || body === null || Array.isArray(body)) {
      return apiError(res, 400, "invalid_body", "the body must be a JSON object");
    }
    const { UserName, PersistPassword } = body as { UserName?: unknown; PersistPassword?: unknown };
    if (typeof UserName !== "string" || UserName.length === 0) {
      return apiError(res, 400, "invalid_user_name", "UserName is required and must be a non-empty string");
    }
    // eslint-disable-next-line no-control-regex -- control characters are what the API refuses
    if (UserName.length > 128 || /[\u0000-\u001f\u007f]/.test(UserName)) {
      return apiError(
        res,
        400,
        "invalid_user_name",
        "UserName must be at most 128 characters without control characters",
      );
    }
    if (PersistPassword !== undefined && PersistPassword !== 0 && PersistPassword !== 1) {
      return apiError(res, 400, "invalid_persist_password", "PersistPassword must be 0 or 1");
    }
    if (!options.allowDuplicateNames && names.has(UserName))
      return apiError(res, 409, "name_taken", `a user named ${UserName} already exists`);

    const user = await store(UserName, (PersistPassword as number | undefined) ?? 0);
    const answer = structuredClone(user) as unknown as Record<string, unknown>;
    delete answer.PersistPassword; // a request member, not a field of the user (spec 2.1)
    const delay = typeof createDelay === "function" ? createDelay(users.length) : createDelay;
    if (delay > 0) {
      inFlight++;
      await new Promise((r) => setTimeout(r, delay));
      inFlight--;
      if (res.destroyed) return;
    }

    switch (fault?.kind) {
      case "drop":
        return req.socket.destroy();
      case "status": {
        res.writeHead(fault.status, { "content-type": "application/json" });
        return res.end(
          fault.body ?? JSON.stringify({ error: { code: "injected", message: `injected ${fault.status}` } }),
        );
      }
      case "garbled": {
        const text = JSON.stringify(answer);
        const cut = fault.withId
          ? text.slice(0, text.indexOf('"Password"') + 14)
          : `<html>${"\u0000".repeat(8)}502 upstream`;
        res.writeHead(200, { "content-type": "application/json" });
        return res.end(cut);
      }
      case "incomplete":
        for (const p of fault.omit) omitPath(answer, p);
        return sendJson(res, 200, answer);
      case "oversized": {
        const head = JSON.stringify({ Id: user.Id, Padding: "" }).slice(0, -2);
        res.writeHead(200, { "content-type": "application/json" });
        res.write(head);
        const chunk = "x".repeat(64 * 1024);
        for (let sent = 0; sent < fault.bytes; sent += chunk.length) {
          if (!res.write(chunk)) await new Promise((r) => res.once("drain", r));
          if (res.destroyed) return;
        }
        return res.end('"}');
      }
      case "slow":
        await new Promise((r) => setTimeout(r, fault.ms));
        if (res.destroyed) return;
        return sendJson(res, 200, answer);
      case "reshape":
        return sendJson(res, 200, fault.transform(structuredClone(user)));
      default:
        return sendJson(res, 200, answer);
    }
  }

  const listener: http.RequestListener = (req, res) => {
    const record: RequestRecord = {
      method: req.method ?? "",
      path: req.url ?? "",
      status: 0,
      contentType: req.headers["content-type"],
      hadAuthorization: req.headers.authorization !== undefined,
      authorized: req.headers.authorization === options.token,
      body: "",
    };
    requests.push(record);
    res.on("finish", () => (record.status = res.statusCode));
    handle(req, res, record).catch((err) => {
      if (!res.headersSent) apiError(res, 500, "internal", String(err));
      else res.destroy();
    });
  };

  const server = options.tls
    ? https.createServer({ key: options.tls.key, cert: options.tls.cert }, listener)
    : http.createServer(listener);
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", () => resolve());
  });
  const port = (server.address() as AddressInfo).port;

  return {
    url: `${options.tls ? "https" : "http"}://127.0.0.1:${port}`,
    port,
    users,
    requests,
    get createAttempts() {
      return createAttempts;
    },
    get createsInFlight() {
      return inFlight;
    },
    inject: (...f) => void faults.push(...f),
    setLatency: (ms) => void (latencyMs = ms),
    setCreateDelay: (ms) => void (createDelay = ms),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}
