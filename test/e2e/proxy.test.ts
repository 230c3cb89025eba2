// HTTP(S)_PROXY and NO_PROXY reach the plugin through the environment, as in a user's shell or
// CI job; a CONNECT proxy on loopback counts the tunnels it opened.
import * as http from "node:http";
import * as net from "node:net";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, expect, test } from "vitest";
import { ApiServer, startApiServer } from "../../server/api-server";
import { TestStack } from "../../scripts/stack";

const token = "proxy-token-5d2a91";
let api: ApiServer;
let proxy: http.Server;
const tunnels: string[] = [];

beforeAll(async () => {
  api = await startApiServer({ token });
  proxy = http.createServer((_req, res) => res.writeHead(405).end());
  proxy.on("connect", (req, client: net.Socket, head) => {
    tunnels.push(req.url ?? "");
    const [host, port] = (req.url ?? "").split(":");
    const upstream = net.connect(Number(port), host, () => {
      client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      upstream.write(head);
      upstream.pipe(client).pipe(upstream);
    });
    upstream.on("error", () => client.destroy());
    client.on("error", () => upstream.destroy());
  });
  await new Promise<void>((r) => proxy.listen(0, "127.0.0.1", r));
});
afterAll(async () => {
  proxy.closeAllConnections();
  await new Promise((r) => proxy.close(r));
  await api.close();
});

test.each([
  ["HTTP_PROXY set: the create goes through the proxy", {}, 1],
  ["NO_PROXY names the API host: it bypasses the proxy", { NO_PROXY: "127.0.0.1" }, 0],
])("%s", async (_what, extraEnv, viaProxy) => {
  const proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  const before = { tunnels: tunnels.length, users: api.users.length };
  const stack = await TestStack.create({
    programDir: ".",
    config: { "storage:baseUrl": api.url, "users[0].userName": `proxied-${viaProxy}` },
    secrets: { "storage:accessToken": token },
    env: { HTTP_PROXY: proxyUrl, HTTPS_PROXY: proxyUrl, NO_PROXY: undefined, ...extraEnv },
  });
  try {
    const up = await stack.up();
    expect(up.code, up.output).toBe(0);
    expect(api.users.length - before.users).toBe(1);
    expect(tunnels.length - before.tunnels).toBe(viaProxy);
    if (viaProxy) expect(tunnels.at(-1)).toBe(`127.0.0.1:${api.port}`);
  } finally {
    await stack.dispose();
  }
});
