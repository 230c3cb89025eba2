// The programs under examples/ that no other file runs, as their READMEs say, through the real CLI
// against the local API, with the package installed as the tests install it (scripts/consumer.ts):
// `basic`, and the README's first snippet feeding `app-config` through a StackReference. Every
// example type-checks. (from-config: consumer-path.test.ts and ledger.test.ts; ci-preview:
// ci-review.test.ts and policy-pack.test.ts; the rest: automation, unit-testing-example, yaml, go.)
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { ApiServer, startApiServer } from "../../server/api-server";
import { installConsumer } from "../../scripts/consumer";
import { repoRoot, TestStack } from "../../scripts/stack";
import { secretsOf } from "../support/secrets";
import { ok } from "../support/cli-project";

const token = "examples-token-7f3a9c";
const examples = path.join(repoRoot, "examples");
let api: ApiServer;
let tmp: string;
beforeAll(async () => {
  api = await startApiServer({ token });
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "psu-examples-"));
});
afterAll(async () => {
  await api?.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});
const withApi = () => ({ STORAGE_API_URL: api.url, STORAGE_ACCESS_TOKEN: token });
/** Every credential issued so far, as plain text. */
const credentials = () => api.users.flatMap(secretsOf).map(([, v]) => v);

test("every example type-checks against the package's published types", () => {
  // The CLI only transpiles; a user's editor and `tsc` see the types too.
  for (const name of ["basic", "from-config", "app-config"]) {
    const tsc = path.join(repoRoot, "node_modules", "typescript", "bin", "tsc");
    const r = (() => {
      try {
        return execFileSync(process.execPath, [tsc, "-p", path.join(examples, name, "tsconfig.json"), "--noEmit"], {
          encoding: "utf8",
        });
      } catch (err) {
        return `examples/${name} does not type-check:\n${(err as { stdout?: string }).stdout}`;
      }
    })();
    expect(r).toBe("");
  }
});

test("basic: up creates one user, its provider in state one require; the credentials show only when asked", async () => {
  const stack = await TestStack.create({
    programDir: path.join(examples, "basic"),
    config: { "basic:userName": "basic-user" },
    env: withApi(),
  });
  try {
    ok(await stack.up());
    const created = api.users.find((u) => u.Name === "basic-user")!;
    const [user] = await stack.resources();
    for (const where of ["inputs", "outputs"] as const) {
      const provider: string = user[where].__provider;
      expect(provider).toMatch(
        /^exports\.handler = __f0;\nconst provider = require\("pulumi-storage-user\/dist\/provider\/runtime(\.js)?"\);\n/,
      );
      expect(provider.match(/require\(/g)).toHaveLength(1);
      expect(Buffer.byteLength(provider), provider).toBeLessThan(512);
    }
    const shown = await stack.outputs(true);
    expect(shown).toMatchObject({
      userId: created.Id,
      userName: "basic-user",
      password: created.Password,
      s3: {
        endpoint: created.S3Connection.Endpoint,
        accessKey: created.S3Connection.AccessKey,
        secretKey: created.S3Connection.SecretKey,
      },
      swift: { tenantId: created.SwiftApiConnection.TenantId, password: created.SwiftApiConnection.Password },
      ftp: { login: created.FtpConnection.Login, password: created.FtpConnection.Password },
      env: { AWS_SECRET_ACCESS_KEY: created.S3Connection.SecretKey, OS_PASSWORD: created.SwiftApiConnection.Password },
      ftpUrl: `ftp://${created.FtpConnection.Login}:${created.FtpConnection.Password}@${created.FtpConnection.HostName}/`,
    });
    const masked = await stack.outputs(false);
    for (const k of ["password", "s3", "swift", "ftp", "env", "ftpUrl"]) expect(masked[k], k).toBe("[secret]");
    expect(masked).toMatchObject({
      userId: created.Id,
      userName: "basic-user",
      s3Endpoint: created.S3Connection.Endpoint,
    });
    const plainText = (await stack.must(["stack", "output"])).stdout + JSON.stringify(masked) + stack.stateFileText();
    for (const v of secretsOf(created).map(([, s]) => s))
      expect(plainText.includes(v), "a credential in masked output or state").toBe(false);
  } finally {
    await stack.dispose();
  }
});

test("the README's first snippet as a program; app-config reads its `credentials`: a 0600 dotenv file, then a Kubernetes Secret, every credential secret in its stack, destroy leaves the file", async () => {
  const snippet = /```ts\n([\s\S]*?)```/.exec(fs.readFileSync(path.join(repoRoot, "README.md"), "utf8"))![1];
  const dir = path.join(tmp, "readme-snippet");
  fs.mkdirSync(dir);
  fs.writeFileSync(path.join(dir, "index.ts"), snippet);
  fs.writeFileSync(path.join(dir, "Pulumi.yaml"), "name: readme-snippet\nruntime: nodejs\n");
  fs.copyFileSync(path.join(examples, "basic", "tsconfig.json"), path.join(dir, "tsconfig.json"));
  fs.symlinkSync(path.join(installConsumer(), "node_modules"), path.join(dir, "node_modules"));
  const users = await TestStack.create({ programDir: dir, env: withApi() });
  // The app stack gets no storage settings at all: it only reads the other stack.
  const envFile = path.join(tmp, "conf", "app.env");
  const app = await TestStack.create({
    programDir: path.join(examples, "app-config"),
    shareBackendWith: users,
    config: {
      "app-config:usersStack": `organization/readme-snippet/${users.stackName}`,
      "app-config:user": "app",
      "app-config:file": envFile,
    },
  });
  try {
    ok(await users.up());
    expect(api.users.at(-1)!.Name).toMatch(/^app-[0-9a-f]{7}$/);
    const out = await users.outputs(true);
    expect(out.userId).toBe(api.users.at(-1)!.Id);
    expect(out.s3.secretKey).toBe(out.credentials.app.env.AWS_SECRET_ACCESS_KEY);
    expect((await users.outputs(false)).credentials).toEqual({ app: { env: "[secret]" } });

    // Preview renders but must not write. Under --debug the SDK prints what the StackReference read,
    // secrets in plain text; the example cuts those dumps (redactResponseDumps).
    const preview = ok(await app.preview(["--debug"]));
    expect(fs.existsSync(path.dirname(envFile))).toBe(false);
    const appUp = ok(await app.up(["--debug"]));
    for (const r of [preview, appUp]) {
      expect(r.output).toMatch(/ReadResource RPC finished: [^\n]*resp: \[omitted: holds secret values\]/);
      for (const v of credentials()) expect(r.output.includes(v), "a credential in --debug output").toBe(false);
    }
    expect(fs.statSync(envFile).mode & 0o777).toBe(0o600);
    const lines = fs.readFileSync(envFile, "utf8").trimEnd().split("\n");
    const parsed = Object.fromEntries(
      lines.map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1).replace(/^'(.*)'$/, "$1")]),
    );
    expect(parsed).toEqual(out.credentials.app.env);
    expect(Object.keys(parsed)).toHaveLength(12);
    expect(await app.outputs(false)).toEqual({ configFile: envFile, configFormat: "dotenv" });

    const secretFile = path.join(tmp, "conf", "app-secret.yaml");
    await app.setConfig({ "app-config:format": "k8s-secret", "app-config:file": secretFile });
    ok(await app.up());
    const manifest = fs.readFileSync(secretFile, "utf8");
    expect(fs.statSync(secretFile).mode & 0o777).toBe(0o600);
    expect(manifest).toContain("kind: Secret\nmetadata:\n  name: app-storage\n");
    expect(manifest).toContain(`  AWS_SECRET_ACCESS_KEY: ${JSON.stringify(out.s3.secretKey)}\n`);
    // Secrets end to end: nothing in the app stack's state, export or masked outputs is plain.
    const appText =
      app.stateFileText() +
      JSON.stringify(await app.exportState()) +
      (await app.must(["stack", "output", "--json"])).stdout;
    expect(appText).toContain("ciphertext");
    for (const v of credentials())
      expect(appText.includes(v), "a credential in plain text in the app stack").toBe(false);
    // The file is the application's (examples/app-config/README.md): destroy leaves it.
    ok(await app.destroy());
    expect(fs.readFileSync(secretFile, "utf8")).toBe(manifest);
  } finally {
    await app.dispose();
    await users.dispose();
  }
});
