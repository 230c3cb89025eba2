/**
 * Real Swift behind the local API's real mode: Keystone (identity v3, sqlite, fernet tokens,
 * under uwsgi) and a Swift proxy with `authtoken` + `keystoneauth` over one account, container
 * and object server on a one-device ring, all on 127.0.0.1 with their state in a temp dir, from
 * Debian's packages (tools/real-servers/swift.sh). A user is created at run time with three
 * Keystone calls (project, user, member role), no restart. What the SwiftApiConnection then
 * holds, and why: docs/real-servers.md "Swift".
 */
import { ChildProcess, execFile, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { promisify } from "node:util";
import { BackendError, connects, freePort, stop, tail } from "./processes";

const run = promisify(execFile);

/** What the API needs of Swift: where clients authenticate, and a way to add a user. */
export interface SwiftBackend {
  /** The Keystone v3 URL clients authenticate at: what SwiftApiConnection.Endpoint holds. */
  readonly authUrl: string;
  /** The proxy's URL (`…/v1/AUTH_<project id>` is a user's account). */
  readonly proxyUrl: string;
  /** Creates a project and a user in it with the member role; resolves to the project id. */
  createUser(name: string, password: string): Promise<string>;
  close(): Promise<void>;
}

const needed = [
  "keystone-manage",
  "uwsgi",
  "swift-ring-builder",
  "swift-proxy-server",
  "swift-account-server",
  "swift-container-server",
  "swift-object-server",
];
const uwsgiPython = "/usr/lib/uwsgi/plugins/python3_plugin.so";

/** Where PATH finds a command, if it does. */
function which(cmd: string): string | undefined {
  return (process.env.PATH ?? "")
    .split(path.delimiter)
    .map((d) => d && path.join(d, cmd))
    .find((p) => p && fs.existsSync(p));
}

/** The commands missing for Swift; empty when it can run here. */
export function swiftMissing(): string[] {
  return [...needed.filter((c) => !which(c)), ...(fs.existsSync(uwsgiPython) ? [] : ["uwsgi-plugin-python3"])];
}

/** The account the servers drop to when started as root (the Debian packages create `swift`). */
function serviceUser(): string {
  if (process.getuid?.() !== 0) return os.userInfo().username;
  try {
    return fs
      .readFileSync("/etc/passwd", "utf8")
      .split("\n")
      .some((l) => l.startsWith("swift:"))
      ? "swift"
      : "root";
  } catch {
    return "root";
  }
}

const ini = (sections: Record<string, Record<string, string | number>>) =>
  Object.entries(sections)
    .map(
      ([name, kv]) =>
        `[${name}]\n${Object.entries(kv)
          .map(([k, v]) => `${k} = ${v}`)
          .join("\n")}\n`,
    )
    .join("\n");

/**
 * A key repository as `keystone-manage fernet_setup` (tokens, receipts) and `credential_setup`
 * leave it: a staged key 0 and a primary key 1, each 32 random bytes in URL-safe base64 with
 * padding (what Python's Fernet reads), 0600 in a 0700 directory. Written here: each
 * keystone-manage run is a Python start of 4-5 CPU-seconds.
 */
function keyRepository(dir: string): void {
  fs.mkdirSync(dir, { mode: 0o700 });
  for (const name of ["0", "1"])
    fs.writeFileSync(path.join(dir, name), randomBytes(32).toString("base64").replace(/\+/g, "-").replace(/\//g, "_"), {
      mode: 0o600,
    });
}

/**
 * The three one-device rings (`<kind>.ring.gz`, all the servers read), built with Swift's own
 * RingBuilder in one Python process: `swift-ring-builder`'s create, add and rebalance are a Python
 * start each, nine of them, about 12 CPU-seconds. Arguments: the swift dir, then `kind=port`.
 */
const ringScript = `
import sys
from swift.common.ring import RingBuilder
for arg in sys.argv[2:]:
    kind, port = arg.split("=")
    builder = RingBuilder(6, 1, 1)
    builder.add_dev({"region": 1, "zone": 1, "ip": "127.0.0.1", "port": int(port), "device": "d1", "weight": 100, "meta": ""})
    builder.rebalance()
    builder.get_ring().save("%s/%s.ring.gz" % (sys.argv[1], kind))
`;

/** The interpreter (and its arguments) Swift's own tools run on: swift-ring-builder's `#!` line. */
function swiftPython(): string[] {
  const tool = which("swift-ring-builder")!;
  const shebang = /^#!\s*(.+)$/.exec(fs.readFileSync(tool, "utf8").split("\n", 1)[0])?.[1];
  if (!shebang) throw new BackendError("swift-ring-builder has no #! line", tool);
  return shebang.trim().split(/\s+/);
}

async function waitForPort(
  port: number,
  child: ChildProcess,
  what: string,
  output: () => string,
  ms = 60_000,
): Promise<void> {
  for (let waited = 0; waited < ms; waited += 100) {
    if (child.exitCode !== null) throw new BackendError(`${what} exited`, output() || "no output");
    if (await connects(port)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new BackendError(`${what} did not start in ${ms / 1000}s`, output() || "no output");
}

/**
 * Starts Keystone and Swift in a temp dir of their own (the service user must reach it: a dir
 * under another temp dir of root's, mode 0700, is out of its reach); the caller has checked
 * `swiftMissing()` is empty.
 */
export async function startSwiftBackend(): Promise<SwiftBackend> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "psu-swift-"));
  const [kPort, pPort, aPort, cPort, oPort] = await Promise.all([1, 2, 3, 4, 5].map(() => freePort()));
  const user = serviceUser();
  const ks = path.join(dir, "keystone");
  const sw = path.join(dir, "swift");
  fs.mkdirSync(ks, { recursive: true });
  fs.mkdirSync(path.join(sw, "srv", "d1"), { recursive: true });
  const authUrl = `http://127.0.0.1:${kPort}/v3`;
  const proxyUrl = `http://127.0.0.1:${pPort}`;
  // Only the servers use it; it never leaves this process but through their config files (0600).
  const admin = { name: "admin", password: randomBytes(18).toString("hex") };
  const children: ChildProcess[] = [];
  // A parent that exits without close() (process.exit, an uncaught error) takes them along.
  const reap = () => children.forEach((c) => c.kill("SIGKILL"));
  process.once("exit", reap);
  const close = async () => {
    process.off("exit", reap);
    await Promise.all(children.map(stop));
    fs.rmSync(dir, { recursive: true, force: true });
  };
  try {
    const ksConf = path.join(ks, "keystone.conf");
    fs.writeFileSync(
      ksConf,
      ini({
        DEFAULT: { log_file: path.join(ks, "keystone.log") },
        database: { connection: `sqlite:///${path.join(ks, "keystone.db")}` },
        token: { provider: "fernet" },
        fernet_tokens: { key_repository: path.join(ks, "fernet-keys") },
        fernet_receipts: { key_repository: path.join(ks, "fernet-receipts") },
        credential: { key_repository: path.join(ks, "credential-keys") },
        // bcrypt's smallest cost: a user is created per API call, and these are test users.
        identity: { password_hash_rounds: 4 },
        cache: { enabled: "true", backend: "dogpile.cache.memory" },
      }),
      { mode: 0o600 },
    );
    const manage = (...args: string[]) =>
      run("keystone-manage", ["--config-file", ksConf, ...args], { env: { ...process.env, PYTHONWARNINGS: "ignore" } });
    const keystoneReady = (async () => {
      await manage("db_sync");
      // As ourselves; the whole directory goes to the service user below.
      for (const repository of ["fernet-keys", "fernet-receipts", "credential-keys"])
        keyRepository(path.join(ks, repository));
      await manage(
        "bootstrap",
        "--bootstrap-username",
        admin.name,
        "--bootstrap-password",
        admin.password,
        "--bootstrap-admin-url",
        authUrl,
        "--bootstrap-public-url",
        authUrl,
        "--bootstrap-internal-url",
        authUrl,
        "--bootstrap-region-id",
        "RegionOne",
      );
    })();
    const ringsReady = (async () => {
      fs.writeFileSync(
        path.join(sw, "swift.conf"),
        ini({
          "swift-hash": {
            swift_hash_path_suffix: randomBytes(8).toString("hex"),
            swift_hash_path_prefix: randomBytes(8).toString("hex"),
          },
          "storage-policy:0": { name: "Policy-0", default: "yes" },
        }),
      );
      const ports = { account: aPort, container: cPort, object: oPort };
      const [python, ...pythonArgs] = swiftPython();
      await run(python, [...pythonArgs, "-c", ringScript, sw, ...Object.entries(ports).map(([k, p]) => `${k}=${p}`)]);
      for (const [kind, port] of Object.entries(ports))
        fs.writeFileSync(
          path.join(sw, `${kind}-server.conf`),
          ini({
            DEFAULT: {
              bind_ip: "127.0.0.1",
              bind_port: port,
              devices: path.join(sw, "srv"),
              mount_check: "false",
              swift_dir: sw,
              user,
              workers: 0,
            },
            "pipeline:main": { pipeline: `${kind}-server` },
            [`app:${kind}-server`]: { use: `egg:swift#${kind}` },
          }),
        );
      fs.writeFileSync(
        path.join(sw, "proxy-server.conf"),
        ini({
          DEFAULT: { bind_ip: "127.0.0.1", bind_port: pPort, swift_dir: sw, user, workers: 0 },
          "pipeline:main": { pipeline: "catch_errors proxy-logging authtoken keystoneauth proxy-logging proxy-server" },
          "app:proxy-server": { use: "egg:swift#proxy", account_autocreate: "true" },
          "filter:catch_errors": { use: "egg:swift#catch_errors" },
          "filter:proxy-logging": { use: "egg:swift#proxy_logging" },
          "filter:authtoken": {
            "paste.filter_factory": "keystonemiddleware.auth_token:filter_factory",
            www_authenticate_uri: authUrl,
            auth_url: authUrl,
            auth_type: "password",
            project_domain_id: "default",
            user_domain_id: "default",
            project_name: "admin",
            username: admin.name,
            password: admin.password,
            delay_auth_decision: "True",
            // keystonemiddleware looks for the "internal" identity endpoint by default.
            interface: "public",
          },
          "filter:keystoneauth": { use: "egg:swift#keystoneauth", operator_roles: "admin, member" },
        }),
        { mode: 0o600 },
      );
    })();
    await Promise.all([keystoneReady, ringsReady]);
    if (process.getuid?.() === 0) await run("chown", ["-R", `${user}:`, dir]);

    // `Connection: close`: uwsgi's --http-socket closes every connection after its answer without
    // saying so, and HTTP/1.1 clients that reuse it (Go's in rclone retrying a refused login,
    // undici here) then read "connection reset by peer"; told, they open a new one.
    const uwsgiArgs = [
      "--plugin",
      "python3",
      "--http-socket",
      `127.0.0.1:${kPort}`,
      "--add-header",
      "Connection: close",
      "--wsgi-file",
      "/usr/bin/keystone-wsgi-public",
      "--processes",
      "1",
      "--threads",
      "4",
      "--master",
      "--die-on-term",
      "--no-orphans",
    ];
    if (process.getuid?.() === 0 && user !== "root") uwsgiArgs.push("--uid", user, "--gid", user);
    const keystone = spawn("uwsgi", uwsgiArgs, {
      env: { ...process.env, OS_KEYSTONE_CONFIG_FILES: ksConf },
      stdio: ["ignore", "pipe", "pipe"],
    });
    children.push(keystone);
    const servers = (["account", "container", "object", "proxy"] as const).map((kind) => {
      const child = spawn(`swift-${kind}-server`, [path.join(sw, `${kind}-server.conf`)], {
        stdio: ["ignore", "pipe", "pipe"],
      });
      children.push(child);
      return {
        kind,
        child,
        output: tail(child),
        port: { account: aPort, container: cPort, object: oPort, proxy: pPort }[kind],
      };
    });
    await waitForPort(kPort, keystone, "keystone (uwsgi)", tail(keystone));
    await Promise.all(servers.map((s) => waitForPort(s.port, s.child, `swift-${s.kind}-server`, s.output)));

    /** The members of Keystone's answers read below (each call reads one). */
    type KeystoneAnswer = {
      service: { id: string };
      roles: Array<{ id: string } | undefined>;
      project: { id: string };
      user: { id: string };
    };
    const keystoneApi = async (method: string, url: string, token: string | undefined, body?: unknown) => {
      const res = await fetch(`${authUrl}${url}`, {
        method,
        headers: { "content-type": "application/json", ...(token ? { "x-auth-token": token } : {}) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      if (!res.ok) throw new BackendError(`keystone refused ${method} ${url}`, `${res.status} ${text.slice(0, 300)}`);
      return { res, json: (text ? JSON.parse(text) : undefined) as KeystoneAnswer };
    };
    const adminToken = async () =>
      (
        await keystoneApi("POST", "/auth/tokens", undefined, {
          auth: {
            identity: {
              methods: ["password"],
              password: { user: { name: admin.name, domain: { id: "default" }, password: admin.password } },
            },
            scope: { project: { name: "admin", domain: { id: "default" } } },
          },
        })
      ).res.headers.get("x-subject-token")!;
    // Tokens live an hour by default; a new one per hour keeps a long `npm run api` working.
    let token = { value: await adminToken(), at: Date.now() };
    const fresh = async () => {
      if (Date.now() - token.at > 30 * 60_000) token = { value: await adminToken(), at: Date.now() };
      return token.value;
    };
    // Clients find the proxy through the catalog of the token they get.
    const service = await keystoneApi("POST", "/services", token.value, {
      service: { type: "object-store", name: "swift" },
    });
    await keystoneApi("POST", "/endpoints", token.value, {
      endpoint: {
        service_id: service.json.service.id,
        interface: "public",
        region_id: "RegionOne",
        url: `${proxyUrl}/v1/AUTH_%(project_id)s`,
      },
    });
    const member = (await keystoneApi("GET", "/roles?name=member", token.value)).json.roles[0]?.id;
    if (!member) throw new BackendError("keystone has no member role", "bootstrap creates it: check keystone.log");
    return {
      authUrl,
      proxyUrl,
      async createUser(name, password) {
        const t = await fresh();
        const project = (await keystoneApi("POST", "/projects", t, { project: { name, domain_id: "default" } })).json
          .project.id;
        const created = (
          await keystoneApi("POST", "/users", t, {
            user: { name, domain_id: "default", default_project_id: project, password },
          })
        ).json.user.id;
        await keystoneApi("PUT", `/projects/${project}/users/${created}/roles/${member}`, t);
        return project;
      },
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}
