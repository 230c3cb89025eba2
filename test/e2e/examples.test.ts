// Every program under examples/ run as its README says, through the real CLI against the local
// storage API. `basic` is installed the way a user installs it: from the packed tarball.
import { execFileSync, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { ApiServer, startApiServer } from "../../server/api-server";
import { packWithHooks } from "../support/pack";
import { installConsumer } from "../../scripts/consumer";
import { repoRoot, TestStack } from "../../scripts/stack";
import { userPath } from "../../scripts/toolchain";

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

/** Every string in the user's credentials that must never appear in plain text outside a secret. */
function secretValues(c: { password: string; swift: any; s3: any; ftp: any; ftpUrl: string }): string[] {
  return [
    c.password,
    c.swift.accessKey,
    c.swift.password,
    c.swift.tenantId,
    c.s3.accessKey,
    c.s3.secretKey,
    c.ftp.login,
    c.ftp.password,
    c.ftpUrl,
  ];
}

test("every example type-checks against the package's published types", () => {
  // The CLI only transpiles; a user's editor and `tsc` see the types too.
  for (const name of ["basic", "from-config", "app-config"]) {
    const tsc = path.join(repoRoot, "node_modules", "typescript", "bin", "tsc");
    try {
      execFileSync(process.execPath, [tsc, "-p", path.join(examples, name, "tsconfig.json"), "--noEmit"], {
        encoding: "utf8",
        stdio: "pipe",
      });
    } catch (err) {
      throw new Error(`examples/${name} does not type-check:\n${(err as { stdout?: string }).stdout}`, { cause: err });
    }
  }
});

describe("basic, installed from the packed tarball", () => {
  test("up creates one user; the provider in state is a one-line require; secrets show only when asked", async () => {
    expect(fs.existsSync(path.join(repoRoot, "dist", "provider", "runtime.js")), "run `npm run build` first").toBe(
      true,
    );
    const { tarball, checkout } = packWithHooks(tmp);
    const dir = path.join(tmp, "basic");
    fs.mkdirSync(dir);
    for (const f of ["Pulumi.yaml", "index.ts", "package.json", "tsconfig.json", "README.md"])
      fs.copyFileSync(path.join(examples, "basic", f), path.join(dir, f));
    // What `npm install pulumi-storage-user` does, with the tarball standing in for the registry.
    const pkg = JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8"));
    pkg.dependencies["pulumi-storage-user"] = `file:${tarball}`;
    fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify(pkg, null, 2));
    // npm 11 lists every installed package with install scripts; the tarball has none (the
    // `prepare` that git installs need is taken out by `npm pack`: scripts/pack-manifest.cjs).
    const install = spawnSync("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline"], {
      cwd: dir,
      encoding: "utf8",
      env: { ...process.env, PATH: userPath(), npm_config_loglevel: "warn" },
    });
    expect(install.status, install.stderr).toBe(0);
    // npm 11 lists @pulumi/pulumi's protobufjs there, not this package.
    expect(install.stderr).not.toMatch(/pulumi-storage-user@/);
    expect(
      JSON.parse(fs.readFileSync(path.join(dir, "node_modules", "pulumi-storage-user", "package.json"), "utf8")).scripts
        .prepare,
    ).toBeUndefined();
    expect(JSON.parse(fs.readFileSync(path.join(checkout, "package.json"), "utf8")).scripts.prepare).toBeDefined(); // restored by postpack
    const installed = path.join(dir, "node_modules", "pulumi-storage-user");
    expect(fs.lstatSync(installed).isSymbolicLink()).toBe(false);
    expect(fs.existsSync(path.join(installed, "dist", "provider", "ledger-runtime.js"))).toBe(true);

    const before = api.users.length;
    const stack = await TestStack.create({
      programDir: dir,
      config: { "basic:userName": "basic-user" },
      env: withApi(),
    });
    try {
      const up = await stack.up();
      expect(up.code, up.output).toBe(0);
      expect(api.users.length - before).toBe(1);
      const created = api.users[api.users.length - 1];
      expect(created.Name).toBe("basic-user");

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
        env: {
          AWS_SECRET_ACCESS_KEY: created.S3Connection.SecretKey,
          OS_PASSWORD: created.SwiftApiConnection.Password,
        },
      });
      expect(shown.ftpUrl).toBe(
        `ftp://${created.FtpConnection.Login}:${created.FtpConnection.Password}@${created.FtpConnection.HostName}/`,
      );

      const masked = await stack.outputs(false);
      for (const k of ["password", "s3", "swift", "ftp", "env", "ftpUrl"]) expect(masked[k], k).toBe("[secret]");
      expect(masked).toMatchObject({
        userId: created.Id,
        userName: "basic-user",
        s3Endpoint: created.S3Connection.Endpoint,
      });
      const plainText = (await stack.must(["stack", "output"])).stdout + JSON.stringify(masked) + stack.stateFileText();
      for (const v of secretValues(shown as any))
        expect(plainText.includes(v), "a credential leaked into masked output or state").toBe(false);
    } finally {
      await stack.dispose();
    }
  });
});

describe("from-config feeding app-config through a StackReference", () => {
  test("the second stack writes a 0600 config file and keeps every credential secret", async () => {
    const users = await TestStack.create({
      programDir: path.join(examples, "from-config"),
      config: {
        "users[0].name": "app",
        "users[0].userName": "app-cfg",
        "users[1].name": "worker",
        "users[1].userName": "worker-cfg",
      },
      env: withApi(),
    });
    // The app stack gets no storage settings at all: it only reads the other stack.
    const app = await TestStack.create({
      programDir: path.join(examples, "app-config"),
      shareBackendWith: users,
      config: {
        "app-config:usersStack": `organization/from-config/${users.stackName}`,
        "app-config:user": "app",
        "app-config:file": path.join(tmp, "conf", "app.env"),
      },
    });
    try {
      const up = await users.up();
      expect(up.code, up.output).toBe(0);
      const out = await users.outputs(true);
      expect(Object.keys(out.credentials).sort()).toEqual(["app", "worker"]);
      expect(out.forgotten).toEqual([]);
      expect(out.summary.app).toMatchObject({
        userName: "app-cfg",
        userId: api.users.find((u) => u.Name === "app-cfg")!.Id,
      });
      const creds = out.credentials.app;
      expect((await users.outputs(false)).credentials).toBe("[secret]");

      // Preview renders but must not write.
      const preview = await app.preview(["--debug"]);
      expect(preview.code, preview.output).toBe(0);
      expect(fs.existsSync(path.join(tmp, "conf"))).toBe(false);

      const appUp = await app.up(["--debug"]);
      expect(appUp.code, appUp.output).toBe(0);
      // Under --debug the SDK prints what the StackReference read, secrets in plain text; the
      // example cuts those dumps (redactResponseDumps), so no credential shows.
      for (const [label, r] of [
        ["preview --debug", preview],
        ["up --debug", appUp],
      ] as const) {
        expect(r.output, `${label} has the StackReference's read line`).toMatch(
          /ReadResource RPC finished: [^\n]*resp: \[omitted: holds secret values\]/,
        );
        for (const v of secretValues(creds)) expect(r.output.includes(v), `${label} prints a credential`).toBe(false);
      }
      const envFile = path.join(tmp, "conf", "app.env");
      expect(fs.statSync(envFile).mode & 0o777).toBe(0o600);
      const parsed = Object.fromEntries(
        fs
          .readFileSync(envFile, "utf8")
          .trimEnd()
          .split("\n")
          .map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1).replace(/^'(.*)'$/, "$1")]),
      );
      expect(parsed).toEqual(creds.env);
      expect(Object.keys(parsed)).toHaveLength(12);
      expect(await app.outputs(false)).toEqual({ configFile: envFile, configFormat: "dotenv" });

      // Same credentials as a Kubernetes Secret manifest.
      await app.setConfig({
        "app-config:format": "k8s-secret",
        "app-config:file": path.join(tmp, "conf", "app-secret.yaml"),
      });
      const k8sUp = await app.up();
      expect(k8sUp.code, k8sUp.output).toBe(0);
      const manifest = fs.readFileSync(path.join(tmp, "conf", "app-secret.yaml"), "utf8");
      expect(fs.statSync(path.join(tmp, "conf", "app-secret.yaml")).mode & 0o777).toBe(0o600);
      expect(manifest).toContain("kind: Secret\nmetadata:\n  name: app-storage\n");
      expect(manifest).toContain(`  AWS_SECRET_ACCESS_KEY: ${JSON.stringify(creds.s3.secretKey)}\n`);

      // Secrets end to end: nothing in the app stack's state, export or masked outputs is plain.
      const appText =
        app.stateFileText() +
        JSON.stringify(await app.exportState()) +
        (await app.must(["stack", "output", "--json"])).stdout;
      expect(appText).toContain("ciphertext");
      for (const v of secretValues(creds))
        expect(appText.includes(v), "a credential is in plain text in the app stack").toBe(false);

      // The file is the application's (examples/app-config/README.md): destroy leaves it.
      expect((await app.destroy()).code).toBe(0);
      expect(fs.readFileSync(path.join(tmp, "conf", "app-secret.yaml"), "utf8")).toBe(manifest);
    } finally {
      await app.dispose();
      await users.dispose();
    }
  });
});

describe("the README's first snippet", () => {
  test("run as a program, its `credentials` output is what app-config reads", async () => {
    const readme = fs.readFileSync(path.join(repoRoot, "README.md"), "utf8");
    const snippet = /```ts\n([\s\S]*?)```/.exec(readme)![1];
    const dir = path.join(tmp, "readme-snippet");
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, "index.ts"), snippet);
    fs.writeFileSync(path.join(dir, "Pulumi.yaml"), "name: readme-snippet\nruntime: nodejs\n");
    fs.copyFileSync(path.join(examples, "basic", "tsconfig.json"), path.join(dir, "tsconfig.json"));
    // The package as installed for every program here (scripts/consumer.ts).
    fs.symlinkSync(path.join(installConsumer(), "node_modules"), path.join(dir, "node_modules"));
    const users = await TestStack.create({ programDir: dir, env: withApi() });
    const envFile = path.join(tmp, "snippet.env");
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
      const up = await users.up();
      expect(up.code, up.output).toBe(0);
      const out = await users.outputs(true);
      expect(out.userId).toBe(api.users.at(-1)!.Id);
      expect(api.users.at(-1)!.Name).toMatch(/^app-[0-9a-f]{7}$/);
      expect((await users.outputs(false)).credentials).toEqual({ app: { env: "[secret]" } });
      const appUp = await app.up();
      expect(appUp.code, appUp.output).toBe(0);
      const line = fs
        .readFileSync(envFile, "utf8")
        .split("\n")
        .find((l) => l.startsWith("AWS_SECRET_ACCESS_KEY="))!;
      expect(line.slice("AWS_SECRET_ACCESS_KEY=".length).replace(/^'(.*)'$/, "$1")).toBe(
        out.credentials.app.env.AWS_SECRET_ACCESS_KEY,
      );
      expect(out.s3.secretKey).toBe(out.credentials.app.env.AWS_SECRET_ACCESS_KEY);
    } finally {
      await app.dispose();
      await users.dispose();
    }
  });
});

describe("ci-preview", () => {
  const workflow = fs.readFileSync(path.join(examples, "ci-preview", ".github", "workflows", "preview.yml"), "utf8");
  const steps = workflow.split("\n").filter((l) => !l.trim().startsWith("#"));

  test("the workflow previews on pull requests and is never given the API token", () => {
    expect(workflow).toMatch(/^on:\n {2}pull_request:/m);
    expect(steps.some((l) => /^\s+- run: pulumi preview\b/.test(l))).toBe(true);
    expect(steps.filter((l) => /STORAGE_ACCESS_TOKEN|storage:accessToken/.test(l))).toEqual([]);
    expect(steps.filter((l) => /pulumi (up|update|destroy)\b/.test(l))).toEqual([]);
  });

  // The example's preview without a token: before any deploy, test/e2e/engine/lifecycle.test.ts (the same
  // program); after one, with a replacement and no request, test/e2e/engine/ci-review.test.ts (this example's
  // workflow, run as written).
});
