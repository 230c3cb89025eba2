/**
 * The real servers behind the local API's real mode: versitygw (S3, SigV4 checked per user) and
 * tools/ftp-server (FTP, one home directory per login), each a child process on 127.0.0.1 with
 * its data in a temp dir. The API creates every user it issues on both, so the credentials it
 * returns work in real S3 and FTP clients. Choice and limits: docs/real-servers.md.
 */
import { ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { randomSecret } from "./tokens";
import * as fs from "node:fs";
import * as net from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import { realServerBinaries } from "../scripts/toolchain";
import { ApiServer, ApiServerOptions, startApiServer, UserBackends } from "./api-server";
import { signV4 } from "./sigv4";

export class BackendError extends Error {
  readonly code = "BACKEND_FAILED";
  constructor(what: string, detail: string) {
    super(`[BACKEND_FAILED] ${what}: ${detail}: see docs/real-servers.md`);
  }
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve, reject) => server.once("error", reject).listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((r) => server.close(r));
  return port;
}

const connects = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = net.connect(port, "127.0.0.1");
    s.once("connect", () => (s.destroy(), resolve(true)));
    s.once("error", () => resolve(false));
  });

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const kill = setTimeout(() => child.kill("SIGKILL"), 5_000);
    child.once("exit", () => (clearTimeout(kill), resolve()));
    child.kill("SIGTERM");
  });
}

/** Keeps the last few KiB a child wrote, for the error when it fails to start. */
function tail(child: ChildProcess): () => string {
  let text = "";
  const keep = (c: Buffer) => void (text = (text + c.toString("utf8")).slice(-4096));
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  return () => text.trim();
}

async function startVersitygw(bin: string, dir: string, root: { accessKey: string; secretKey: string }): Promise<{ child: ChildProcess; port: number }> {
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
  const child = spawn(bin, ["--listen", "127.0.0.1:0", "--users", usersFile, "--root", root, "--exit-with-stdin"], { stdio: ["pipe", "pipe", "pipe"] });
  const output = tail(child);
  const port = await new Promise<number>((resolve, reject) => {
    let seen = "";
    const timer = setTimeout(() => reject(new BackendError("the FTP server did not start", output() || "no output")), 20_000);
    child.stdout!.on("data", (c: Buffer) => {
      const m = /listening on 127\.0\.0\.1:(\d+)/.exec((seen += c.toString("utf8")));
      if (m) (clearTimeout(timer), resolve(Number(m[1])));
    });
    child.once("exit", () => (clearTimeout(timer), reject(new BackendError("the FTP server exited", output() || "no output"))));
  });
  return { child, port };
}

/** Starts both servers (building them on a cold cache: tools/real-servers/build.sh). */
export async function startUserBackends(): Promise<UserBackends> {
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
    await Promise.all(children.map(stop));
    fs.rmSync(dir, { recursive: true, force: true });
  };
  try {
    const s3 = await startVersitygw(bins.versitygw, dir, root);
    children.push(s3.child);
    const ftp = await startFtp(bins.ftp, dir, usersFile);
    children.push(ftp.child);
    const s3Endpoint = `http://127.0.0.1:${s3.port}`;
    return {
      s3Endpoint,
      ftpHostName: `127.0.0.1:${ftp.port}`,
      async createS3Account(accessKey, secretKey) {
        const xml = (tag: string, v: string) => `<${tag}>${v.replace(/&/g, "&amp;").replace(/</g, "&lt;")}</${tag}>`;
        const body = Buffer.from(`<Account>${xml("Access", accessKey)}${xml("Secret", secretKey)}${xml("Role", "userplus")}</Account>`);
        const url = new URL(`${s3Endpoint}/create-user`);
        const res = await fetch(url, { method: "PATCH", headers: signV4("PATCH", url, body, root), body });
        const text = await res.text();
        // Its error bodies never echo the new keys; quoted so a refusal says why.
        if (!res.ok) throw new BackendError("versitygw refused to create the S3 account", `${res.status} ${text.slice(0, 300)}`);
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
    await close();
    throw err;
  }
}

export type RealApiServer = ApiServer & { readonly backends: UserBackends };

/** The local API in real mode: the servers first, then the API; close() stops all three. */
export async function startRealApiServer(options: Omit<ApiServerOptions, "backends">): Promise<RealApiServer> {
  const backends = await startUserBackends();
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
