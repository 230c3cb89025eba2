/**
 * `npm run api [-- --port 8080 --latency 50 --rate 20 --fake --swift]`: the local storage API,
 * standalone, by default in real mode: every user is also created on a real S3 server (versitygw)
 * and FTP server, started here on 127.0.0.1 and stopped with it; on Keystone and Swift too with
 * `--swift`, the one option that installs anything outside the project's cache (docs/real-servers.md).
 * The token comes from STORAGE_ACCESS_TOKEN; without it one is generated and printed once,
 * since this is a development server and you need it to configure a stack.
 */
import { parseArgs } from "node:util";
import { startApiServer } from "./api-server";
import { describePulumiOnPath, prepareRealServers } from "./binaries";
import { startRealApiServer } from "./real-backends";
import { randomSecret } from "./tokens";

const USAGE = `usage: npm run api -- [--port N] [--latency MS] [--rate PER_SECOND] [--fake | --swift]
  --port N            listen on 127.0.0.1:N (default 0: any free port)
  --latency MS        answer each create after MS milliseconds (default 0)
  --rate PER_SECOND   answer 429 beyond that many creates per second
  --fake              no S3/FTP servers: credentials are made-up strings that work nowhere
  --swift             real Keystone and Swift too; installs them first, if missing, with apt-get
                      as root (ten Debian packages, system-wide: tools/real-servers/swift.sh)
The token is STORAGE_ACCESS_TOKEN, or one is generated and printed.`;

function args() {
  try {
    return parseArgs({
      options: {
        port: { type: "string", default: "0" },
        latency: { type: "string", default: "0" },
        rate: { type: "string" },
        fake: { type: "boolean", default: false },
        swift: { type: "boolean", default: false },
        help: { type: "boolean", short: "h" },
      },
    }).values;
  } catch (err) {
    console.error(`${(err as Error).message}\n${USAGE}`);
    process.exit(2);
  }
}

async function main() {
  const values = args();
  if (values.help) {
    console.log(USAGE);
    return;
  }
  const given = process.env.STORAGE_ACCESS_TOKEN;
  const token = given || randomSecret();
  const options = {
    token,
    port: Number(values.port),
    latencyMs: Number(values.latency),
    ...(values.rate ? { rateLimit: { perSecond: Number(values.rate) } } : {}),
  };
  const ready = values.fake ? undefined : await prepareRealServers(values.swift, "npm run api -- --swift");
  const real = ready?.real ? await startRealApiServer(options, { swift: ready.swift }) : undefined;
  const server = real ?? (await startApiServer(options));
  // Before the first line is printed: whoever reads it may stop us at once, servers included.
  const stop = () => void server.close().then(() => process.exit(0));
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
  console.log(`storage API listening on ${server.url} (POST ${server.url}/storage/users)`);
  if (real) {
    const swift = real.backends.swift ? ` and Swift (Keystone ${real.backends.swift.authUrl})` : "";
    console.log(
      `users are created on S3 ${real.backends.s3Endpoint} (versitygw) and FTP ${real.backends.ftpHostName}${swift}`,
    );
  } else console.log("fake mode: the credentials issued work on no server");
  console.log(describePulumiOnPath());
  // Printed once for the developer to copy; the hint keeps it off their command line and out of shell history.
  if (!given)
    console.log(
      `generated token (paste it at the prompt of: pulumi config set --secret storage:accessToken): ${token}`,
    );
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
