/**
 * The real servers behind the local API's real mode: versitygw (S3, SigV4 checked per user),
 * tools/ftp-server (FTP, one home directory per login) and Keystone + Swift (server/swift-backend.ts),
 * each a child process on 127.0.0.1 with its data in a temp dir. The API creates every user it
 * issues on all of them, so the credentials it returns work in real S3, FTP and Swift clients.
 * Choice and limits: docs/real-servers.md.
 */
import { ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { ApiServer, ApiServerOptions, startApiServer, UserBackends } from "./api-server";
import { realServerBinaries } from "./binaries";
import { BackendError, connects, freePort, stop, tail } from "./processes";
import { signV4 } from "./sigv4";
import { startSwiftBackend, swiftMissing } from "./swift-backend";
import { randomSecret } from "./tokens";

async function startVersitygw(
  bin: string,
  dir: string,
  root: { accessKey: string; secretKey: string },
): Promise<{ child: ChildProcess; port: number }> {
  for (let attempt = 1; ; attempt++) {
    // versitygw cannot report a port it picked itself; a port taken between here and its bind is retried.
    const port = await freePort();
    const iamDir = path.join(dir, "iam");
    const data = path.join(dir, "s3");
    fs.mkdirSync(iamDir, { recursive: true });
    fs.mkdirSync(data, { recursive: true });
    // Root keys through the environment, not argv, so they are not in the process list.
    const child = spawn(bin, ["--port", `127.0.0.1:${port}`, "--iam-dir", iamDir, "--quiet", "posix", data], {
      env: { PATH: process.env.PATH, ROOT_ACCESS_KEY_ID: root.accessKey, ROOT_SECRET_ACCESS_KEY: root.secretKey },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const output = tail(child);
    for (let waited = 0; waited < 20_000 && child.exitCode === null; waited += 50) {
      if (await connects(port)) return { child, port };
      await new Promise((r) => setTimeout(r, 50));
    }
    await stop(child);
    if (attempt === 3) throw new BackendError("versitygw did not start", output() || "no output");
  }
}

async function startFtp(bin: string, dir: string, usersFile: string): Promise<{ child: ChildProcess; port: number }> {
  const root = path.join(dir, "ftp");
  fs.mkdirSync(root, { recursive: true });
  // stdin is a pipe the server watches: it exits when this process is gone, even by SIGKILL.
  const child = spawn(bin, ["--listen", "127.0.0.1:0", "--users", usersFile, "--root", root, "--exit-with-stdin"], {
    stdio: ["pipe", "pipe", "pipe"],
  });
  const output = tail(child);
  const port = await new Promise<number>((resolve, reject) => {
    let seen = "";
    const timer = setTimeout(
      () => reject(new BackendError("the FTP server did not start", output() || "no output")),
      20_000,
    );
    child.stdout.on("data", (c: Buffer) => {
      const m = /listening on 127\.0\.0\.1:(\d+)/.exec((seen += c.toString("utf8")));
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    });
    child.once(
      "exit",
      () => (clearTimeout(timer), reject(new BackendError("the FTP server exited", output() || "no output"))),
    );
  });
  return { child, port };
}

export interface RealBackendOptions {
  /** Where the one line goes that says Swift is not served here (default: stderr). */
  notice?: (line: string) => void;
  /** false: S3 and FTP only, the Swift credentials made up, no notice (default: Swift where it is installed; `npm run api` and the demo pass false but on `--swift`). */
  swift?: boolean;
}

/**
 * Starts the servers (building S3 and FTP on a cold cache: tools/real-servers/build.sh). Swift
 * runs where its packages are installed (tools/real-servers/swift.sh --install); elsewhere one line says
 * that the Swift credentials are made up, and S3 and FTP still run.
 */
export async function startUserBackends(opts: RealBackendOptions = {}): Promise<UserBackends> {
  const bins = realServerBinaries();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "psu-backends-"));
  const root = { accessKey: `ROOT${randomBytes(8).toString("hex").toUpperCase()}`, secretKey: randomSecret() };
  const usersFile = path.join(dir, "ftp-users.json");
  const ftpUsers: Record<string, string> = {};
  fs.writeFileSync(usersFile, "{}", { mode: 0o600 });
  const children: ChildProcess[] = [];
  // A parent that exits without close() (process.exit, an uncaught error) takes them along.
  const reap = () => children.forEach((c) => c.kill("SIGKILL"));
  process.once("exit", reap);
  const close = async () => {
    process.off("exit", reap);
    await Promise.all([...children.map(stop), swift?.close()]);
    fs.rmSync(dir, { recursive: true, force: true });
  };
  let swift: Awaited<ReturnType<typeof startSwiftBackend>> | undefined;
  let swiftStarting: Promise<Awaited<ReturnType<typeof startSwiftBackend>>> | undefined;
  const missing = opts.swift === false ? [] : swiftMissing();
  if (missing.length > 0) {
    (opts.notice ?? ((l: string) => process.stderr.write(`${l}\n`)))(
      `swift: not served here (${missing.join(", ")} missing: bash tools/real-servers/swift.sh --install installs them as root): the Swift credentials (swift, OS_*) are made up; S3 and FTP are real`,
    );
  }
  try {
    // Independent servers start side by side: Keystone's database set-up is the slow part.
    swiftStarting = opts.swift === false || missing.length > 0 ? undefined : startSwiftBackend();
    swiftStarting?.catch(() => undefined); // awaited below; an early failure must not go unhandled meanwhile
    const s3 = await startVersitygw(bins.versitygw, dir, root);
    children.push(s3.child);
    const ftp = await startFtp(bins.ftp, dir, usersFile);
    children.push(ftp.child);
    swift = await swiftStarting;
    const s3Endpoint = `http://127.0.0.1:${s3.port}`;
    return {
      s3Endpoint,
      ftpHostName: `127.0.0.1:${ftp.port}`,
      ...(swift ? { swift: { authUrl: swift.authUrl, createUser: swift.createUser.bind(swift) } } : {}),
      async createS3Account(accessKey, secretKey) {
        const xml = (tag: string, v: string) => `<${tag}>${v.replace(/&/g, "&amp;").replace(/</g, "&lt;")}</${tag}>`;
        const body = Buffer.from(
          `<Account>${xml("Access", accessKey)}${xml("Secret", secretKey)}${xml("Role", "userplus")}</Account>`,
        );
        const url = new URL(`${s3Endpoint}/create-user`);
        const res = await fetch(url, { method: "PATCH", headers: signV4("PATCH", url, body, root), body });
        const text = await res.text();
        // Its error bodies never echo the new keys; quoted so a refusal says why.
        if (!res.ok)
          throw new BackendError("versitygw refused to create the S3 account", `${res.status} ${text.slice(0, 300)}`);
      },
      addFtpUser(login, password) {
        ftpUsers[login] = password;
        const tmp = `${usersFile}.tmp`;
        fs.writeFileSync(tmp, JSON.stringify(ftpUsers), { mode: 0o600 });
        fs.renameSync(tmp, usersFile); // the server reads it at every login: never half written
      },
      close,
    };
  } catch (err) {
    await swiftStarting?.then(
      (started) => started.close(),
      () => undefined,
    );
    await close();
    throw err;
  }
}

export type RealApiServer = ApiServer & { readonly backends: UserBackends };

/** The local API in real mode: the servers first, then the API; close() stops all three. */
export async function startRealApiServer(
  options: Omit<ApiServerOptions, "backends">,
  backendOptions: RealBackendOptions = {},
): Promise<RealApiServer> {
  const backends = await startUserBackends(backendOptions);
  try {
    const api = await startApiServer({ ...options, backends });
    return Object.assign(Object.create(api) as ApiServer, {
      backends,
      close: async () => {
        await api.close();
        await backends.close();
      },
    });
  } catch (err) {
    await backends.close();
    throw err;
  }
}
