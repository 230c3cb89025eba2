/**
 * `npm run build && node dist/bench/verbose-logs.js`: which secrets the engine's own verbose
 * logging (`pulumi -v=9 --logflow --logtostderr`) prints. One stack of the root program, one user,
 * `up` and `refresh` at -v=9 against the local API; per secret, the engine log messages that
 * carry it (the JSON line's "msg", cut before the value). A report, not a test: what the engine
 * logs is the engine's, outside the provider's control; findings in docs/testing.md.
 */
import { startApiServer, StoredUser } from "../server/api-server";
import { installConsumer } from "../scripts/consumer";
import { cliVersion, TestStack } from "../scripts/stack";

const token = "verbose-token-7Hq2mZ9xW4vR8kLp";
const verbose = ["-v=9", "--logflow", "--logtostderr"];

/** Each secret the API issued to `u`, under a label (test/support/secrets.ts searches the same ones). */
function secretsOf(u: StoredUser): Array<[string, string]> {
  const ftp = u.FtpConnection;
  return [
    ["Password", u.Password],
    ["Swift TenantId", u.SwiftApiConnection.TenantId],
    ["Swift AccessKey", u.SwiftApiConnection.AccessKey],
    ["Swift Password", u.SwiftApiConnection.Password],
    ["S3 AccessKey", u.S3Connection.AccessKey],
    ["S3 SecretKey", u.S3Connection.SecretKey],
    ["FTP Login", ftp.Login],
    ["FTP Password", ftp.Password],
    ["ftp URL", `ftp://${encodeURIComponent(ftp.Login)}:${encodeURIComponent(ftp.Password)}@${ftp.HostName}/`],
    ["ftp userinfo", `${ftp.Login}:${ftp.Password}`],
  ];
}

/** Per secret, up to three distinct engine log messages that carry it. */
function report(label: string, text: string, secrets: Array<[string, string]>): string {
  const lines = text.split("\n");
  const rows = secrets.map(([what, value]) => {
    const msgs = new Set<string>();
    for (const l of lines) {
      if (!l.includes(value)) continue;
      let msg = l;
      try {
        msg = String((JSON.parse(l.slice(l.indexOf("{"))) as { msg?: string }).msg ?? l);
      } catch {
        // not a JSON log line: keep the raw line
      }
      const at = msg.indexOf(value);
      msgs.add((at >= 0 ? msg.slice(0, at) : msg).replace(/\d{4}-\d\d-\d\dT[\d:.]+Z?/g, "").slice(0, 70));
    }
    return `${what}: ${
      msgs.size === 0
        ? "not printed"
        : [...msgs]
            .slice(0, 3)
            .map((m) => JSON.stringify(m))
            .join(", ")
    }`;
  });
  return `${label} (${text.length} chars):\n    ${rows.join("\n    ")}`;
}

async function main() {
  installConsumer(); // the root program imports the package as the tests install it
  const api = await startApiServer({ token });
  const stack = await TestStack.create({
    programDir: ".",
    config: { "storage:baseUrl": api.url, "users[0].name": "verbose", "users[0].userName": "verbose" },
    secrets: { "storage:accessToken": token },
  });
  try {
    const up = await stack.up(verbose);
    const refresh = await stack.refresh(verbose);
    if (up.code !== 0 || refresh.code !== 0)
      throw new Error(`up exited ${up.code}, refresh ${refresh.code}:\n${up.output.slice(-3000)}`);
    const secrets: Array<[string, string]> = [["access token", token], ...api.users.flatMap(secretsOf)];
    console.log(
      `engine verbose logs, pulumi ${cliVersion()} -v=9 --logflow --logtostderr:\n  ${[report("up", up.output, secrets), report("refresh", refresh.output, secrets)].join("\n  ")}`,
    );
  } finally {
    await stack.destroy();
    await stack.dispose();
    await api.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
