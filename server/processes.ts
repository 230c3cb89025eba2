/** Child-process plumbing shared by the real servers behind the local API (S3, FTP, Swift). */
import { ChildProcess } from "node:child_process";
import * as net from "node:net";

export class BackendError extends Error {
  readonly code = "BACKEND_FAILED";
  constructor(what: string, detail: string) {
    super(`[BACKEND_FAILED] ${what}: ${detail}: see docs/real-servers.md`);
  }
}

export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve, reject) => server.once("error", reject).listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((r) => server.close(r));
  return port;
}

export const connects = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = net.connect(port, "127.0.0.1");
    s.once("connect", () => (s.destroy(), resolve(true)));
    s.once("error", () => resolve(false));
  });

export function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const kill = setTimeout(() => child.kill("SIGKILL"), 5_000);
    child.once("exit", () => (clearTimeout(kill), resolve()));
    child.kill("SIGTERM");
  });
}

/** Keeps the last few KiB a child wrote, for the error when it fails to start. */
export function tail(child: ChildProcess): () => string {
  let text = "";
  const keep = (c: Buffer) => void (text = (text + c.toString("utf8")).slice(-4096));
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  return () => text.trim();
}
