// Every program under examples/ that no other file runs, as its README says, through the real CLI:
// basic; the README's first snippet feeding app-config; examples/README.md's block in a fresh copy of
// the repository; examples/unit-testing's own tests. (from-config also: the root program of secrets and real-credentials; ci-preview:
// ci-preview.test.ts; automation, yaml and go: their own files.)
import { execFileSync, spawn, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as net from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { ApiServer, startApiServer } from "../../server/api-server";
import { installConsumer } from "../../scripts/consumer";
import { locateCli, repoRoot, TestStack } from "../../scripts/stack";
import { newestTsc, nodeBinDir, pins } from "../../scripts/toolchain";
import { copyCheckout, failed, ok, packedTarball } from "../support/cli-project";
import { secretsOf } from "../support/secrets";

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
/** A dotenv file app-config wrote: its variables, unquoted. */
const envFileOf = (file: string) => {
  const lines = fs.readFileSync(file, "utf8").trimEnd().split("\n");
  return Object.fromEntries(
    lines.map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1).replace(/^'(.*)'$/, "$1")]),
  );
};
/** Every credential issued so far, as plain text. */
const credentials = () => api.users.flatMap(secretsOf).map(([, v]) => v);

test("every example type-checks against the package's published types, with the pinned and the newest TypeScript", () => {
  // The CLI only transpiles; a user's editor and `tsc` see the types too, in whichever TypeScript they have: the
  // pinned one and the newest the registry serves (tools/toolchain/versions.json), which drops options the older
  // ones still take (TS 7: `moduleResolution: node` is TS5108, "has been removed").
  const compilers = [path.join(repoRoot, "node_modules", "typescript", "bin", "tsc"), newestTsc()];
  const checked = compilers.flatMap((tsc) => {
    const version = spawnSync(process.execPath, [tsc, "--version"], { encoding: "utf8" }).stdout.trim();
    return ["basic", "from-config", "app-config", "automation"].map((name) => {
      const r = spawnSync(process.execPath, [tsc, "-p", path.join(examples, name, "tsconfig.json"), "--noEmit"], {
        encoding: "utf8",
      });
      return [version, name, r.status, r.stdout + r.stderr];
    });
  });
  expect(checked.map(([version]) => version)).toContain(`Version ${pins.typescriptNewest}`);
  expect(checked.filter(([, , status]) => status !== 0)).toStrictEqual([]);
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
    const { Login: login, Password: password, HostName: host } = created.FtpConnection;
    expect([shown.userId, shown.password, shown.s3.secretKey, shown.env.OS_PASSWORD, shown.ftp]).toEqual([
      created.Id,
      created.Password,
      created.S3Connection.SecretKey,
      created.SwiftApiConnection.Password,
      { hostName: host, login, password },
    ]);
    expect(shown.ftpUrl).toBe(`ftp://${login}:${password}@${host}/`);
    const masked = await stack.outputs(false);
    for (const k of ["password", "s3", "swift", "ftp", "env", "ftpUrl"]) expect(masked[k], k).toBe("[secret]");
    const s3Endpoint = created.S3Connection.Endpoint;
    expect(masked).toMatchObject({ userId: created.Id, userName: "basic-user", s3Endpoint });
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
    const parsed = envFileOf(envFile);
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

// Examples/README.md "From clone to app config".
const readme = fs.readFileSync(path.join(repoRoot, "examples", "README.md"), "utf8");
const block = /```sh\n([\s\S]*?)```/.exec(readme.slice(readme.indexOf("## From clone to app config")))![1];
const cloneDir = fs.mkdtempSync(path.join(os.tmpdir(), "psu-readme-block-"));
let group: number | undefined;
afterAll(() => {
  try {
    if (group) process.kill(-group, "SIGTERM"); // the API, if the block stopped before its `kill %1`
  } catch {
    // already gone
  }
  fs.rmSync(cloneDir, { recursive: true, force: true });
});
const portTaken = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = net.connect(port, "127.0.0.1", () => (socket.destroy(), resolve(true)));
    socket.on("error", () => resolve(false));
  });
/** Whether something still listens on any of `ports` after up to `tries` × 100 ms. */
async function stillListening(ports: number[], tries: number) {
  for (let i = 0; i < tries; i++) {
    if (!(await Promise.all(ports.map(portTaken))).some(Boolean)) return false;
    await new Promise((r) => setTimeout(r, 100));
  }
  return true;
}

test("the block runs as written: users stack, app-config stack, a 0600 env file with the user's credentials; `kill %1` stops the API and its servers", async () => {
  expect(block).toContain("npm pack");
  // The block starts the local API on a fixed port, as a user would.
  expect(await portTaken(8080), "port 8080 is taken: the block's local API could not start").toBe(false);
  // The tracked files as they are in the working tree: what a clone of this commit holds.
  const clone = path.join(cloneDir, "pulumi-storage-user");
  copyCheckout(clone);
  const env: NodeJS.ProcessEnv = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !/^(STORAGE_|PULUMI_)/.test(k)),
  );
  Object.assign(env, {
    PATH: [locateCli(), nodeBinDir(), process.env.PATH].join(path.delimiter),
    PULUMI_HOME: path.join(cloneDir, "pulumi-home"),
    PULUMI_SKIP_UPDATE_CHECK: "true",
    NO_COLOR: "1",
    npm_config_loglevel: "error",
    npm_config_prefer_offline: "true",
  });
  // -e: the first failing command ends it, as it would stop a user reading the output.
  const child = spawn("bash", ["-e", "-c", block], { cwd: clone, env, detached: true });
  group = child.pid;
  let output = "";
  child.stdout.on("data", (c) => (output += c));
  child.stderr.on("data", (c) => (output += c));
  // "exit", not "close": a server left running would hold the pipes open.
  const code = await new Promise<number>((resolve) => child.on("exit", (c) => resolve(c ?? 1)));
  // Real mode's S3 and FTP servers: `kill %1` is a SIGTERM, which stops them with the API.
  const [, s3Port, ftpPort] =
    /users are created on S3 http:\/\/127\.0\.0\.1:(\d+) \(versitygw\) and FTP 127\.0\.0\.1:(\d+)/.exec(output) ?? [];
  expect(code, output).toBe(0);
  expect(output).toMatch(/storage API listening on http:\/\/127\.0\.0\.1:8080/);
  expect(s3Port, "the API did not start in real mode").toBeDefined();
  expect(await stillListening([8080], 30), "the block's `kill %1` left the local API running").toBe(false);
  expect(
    await stillListening([Number(s3Port), Number(ftpPort)], 100),
    "`kill %1` left real mode's S3 or FTP server running",
  ).toBe(false);
  const envFile = path.join(clone, "examples", "app-config", "app.env");
  expect(fs.statSync(envFile).mode & 0o777).toBe(0o600);
  const vars = envFileOf(envFile);
  // The file holds what the users stack exported for `app`, printed by its --show-secrets line.
  expect(vars.AWS_ACCESS_KEY_ID).toMatch(/\S/);
  expect(output).toContain(vars.AWS_SECRET_ACCESS_KEY);
  expect(output).toMatch(/"userName":\s*"app-[0-9a-f]{7}"/);
});

// Examples/unit-testing, as a user's infra repo has it.
let dir: string;
const unitEnv = {
  ...process.env,
  PATH: [nodeBinDir("24"), process.env.PATH].join(path.delimiter),
  npm_config_loglevel: "error",
  NO_COLOR: "1",
};
beforeAll(() => {
  dir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "psu-unit-")), "infra");
  fs.cpSync(path.join(repoRoot, "examples", "unit-testing"), dir, {
    recursive: true,
    filter: (src) => !src.includes("node_modules"),
  });
  // The example names the tarball `npm pack` writes at the repository's root; the test run's is in its install.
  const pj = JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8"));
  expect(pj.dependencies["pulumi-storage-user"]).toMatch(/^file:\.\.\/\.\.\/pulumi-storage-user-[\d.]+\.tgz$/);
  pj.dependencies["pulumi-storage-user"] = `file:${packedTarball()}`;
  fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify(pj, null, 2));
  const install = ["install", "--no-audit", "--no-fund", "--prefer-offline"];
  execFileSync("npm", install, { cwd: dir, env: unitEnv, stdio: "ignore" });
});
afterAll(() => dir && fs.rmSync(path.dirname(dir), { recursive: true, force: true }));

const npmRun = (script: string) => {
  const r = spawnSync("npm", ["run", "--silent", script], { cwd: dir, env: unitEnv, encoding: "utf8" });
  return { code: r.status, output: r.stdout + r.stderr };
};

test("the mocha test (Pulumi's guide: setMocks, then the program) and the vitest test pass: wiring and secrecy", () => {
  const mocha = ok(npmRun("test:mocha"));
  expect(mocha.output).toMatch(/3 passing/);
  expect(mocha.output).toContain("hands the application secrets only");
  expect(ok(npmRun("test:vitest")).output).toMatch(/Tests\s+2 passed/);
});

test("the example's tests can fail: a StorageUser left to a mock that is not ours has no env", () => {
  // The user's own mocks alone (Pulumi's guide echoes the inputs): the wiring test must fail.
  const spec = path.join(dir, "test", "app.spec.ts");
  const original = fs.readFileSync(spec, "utf8");
  const echo = "setMocks({ newResource: (a) => ({ id: `${a.name}-id`, state: a.inputs }), call: (a) => a.inputs },";
  fs.writeFileSync(spec, original.replace("setMocks(storageUserMocks(),", echo));
  try {
    expect(failed(npmRun("test:mocha")).output).toMatch(/failing/);
  } finally {
    fs.writeFileSync(spec, original);
  }
});
