/**
 * `npm run demo [-- --swift]`: the main job. Starts the bundled storage API on 127.0.0.1 in real
 * mode (a real S3 and FTP server behind it; Swift too with `--swift`), runs a real `pulumi up` of
 * the root program (Pulumi.yaml: examples/from-config) on a throwaway stack with two users, shows
 * the stack outputs with secrets masked, hands one user's `env` output to an application
 * (scripts/demo-app.ts) that writes and reads a file over S3, FTP (and Swift), then destroys the
 * stack and removes it. It installs nothing outside ~/.cache/pulumi-storage-user but on `--swift`.
 */
import { randomBytes } from "node:crypto";
import * as path from "node:path";
import { parseArgs } from "node:util";
import { prepareRealServers, runScript } from "../server/binaries";
import { startApiServer } from "../server/api-server";
import { startRealApiServer } from "../server/real-backends";
import { randomSecret } from "../server/tokens";
import { installConsumer } from "./consumer";
import { runDemoApp } from "./run-app";
import { repoRoot, RunOptions, TestStack } from "./stack";
import { mainJobCli, pins } from "./toolchain";

const echo: RunOptions = { onOutput: () => undefined };
const show = async (stack: TestStack, title: string, args: string[]) => {
  console.log(`\n$ pulumi ${args.join(" ")}    # ${title}`);
  const r = await stack.run(args, echo);
  process.stdout.write(r.output);
  if (r.code !== 0) throw new Error(`pulumi ${args[0]} failed (exit ${r.code})`);
};

/**
 * What the demo runs, and nothing more (no other Node.js versions, no pnpm or yarn), prepared
 * side by side on a cold machine: the Pulumi CLI (unless PATH has one) and the S3/FTP servers
 * build from the Go module proxy while Node.js installs from the npm registry.
 */
async function prepare(swift: boolean) {
  const [cli, servers] = await Promise.all([
    mainJobCli().then((found) => (console.log(found.says), found)),
    prepareRealServers(swift, "npm run demo -- --swift"),
    runScript(path.join(repoRoot, "tools", "toolchain", "install.sh"), ["--node", pins.mainNode]),
  ]);
  // Every stack of this process runs that install (scripts/toolchain.ts locateCli).
  process.env.PULUMI_STORAGE_USER_CLI_DIR = cli.dir;
  return servers;
}

async function main() {
  const started = Date.now();
  const { values } = parseArgs({ options: { swift: { type: "boolean", default: false } } });
  const ready = await prepare(values.swift);
  installConsumer(); // the packed package, installed for the program as an infra repo has it
  console.log(
    `tools ready in ${Math.round((Date.now() - started) / 1000)}s (cached in ~/.cache/pulumi-storage-user after the first run)`,
  );
  const token = randomSecret();
  const real = ready.real ? await startRealApiServer({ token }, { swift: ready.swift }) : undefined;
  const api = real ?? (await startApiServer({ token }));
  const b = real?.backends;
  const swift = b?.swift ? ` and Swift (Keystone ${b.swift.authUrl})` : "";
  console.log(
    `local storage API on ${api.url}, ${b ? `creating users on S3 ${b.s3Endpoint} (versitygw) and FTP ${b.ftpHostName}${swift}` : "in fake mode: the credentials work nowhere, so the demo app is skipped"}`,
  );
  const stack = await TestStack.create({
    programDir: repoRoot,
    stackName: `demo-${randomBytes(3).toString("hex")}`,
    config: {
      "storage:baseUrl": api.url,
      "users[0].name": "app",
      "users[0].userName": "app-prod",
      "users[1].name": "backup",
      "users[1].userName": "backup-prod",
      "users[1].persistPassword": "true",
    },
    secrets: { "storage:accessToken": token },
  });
  try {
    await show(stack, "create the users", ["up", "--yes", "--non-interactive"]);
    await show(stack, "what other programs read; credentials stay [secret]", ["stack", "output"]);
    console.log(
      `\nthe API now holds ${api.users.length} users: ${api.users.map((u) => `${u.Id} ${u.Name}`).join(", ")}`,
    );
    // What a deployment does: the user's env output, decrypted, becomes the app's environment.
    const { credentials } = (await stack.outputs(true)) as { credentials: { app: { env: Record<string, string> } } };
    console.log(
      `\n$ env <credentials.app.env: ${Object.keys(credentials.app.env).join(", ")}> node dist/scripts/demo-app.js`,
    );
    const app = b ? await runDemoApp(credentials.app.env) : { code: 0, output: "skipped (fake mode)\n" };
    process.stdout.write(app.output);
    if (app.code !== 0) throw new Error(`the demo app failed (exit ${app.code})`);
    await show(stack, "clean up (the API has no delete call: users are forgotten, with a warning)", [
      "destroy",
      "--yes",
      "--non-interactive",
      "--skip-preview",
    ]);
  } finally {
    await stack.dispose();
    await api.close();
  }
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
