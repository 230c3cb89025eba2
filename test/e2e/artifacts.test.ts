// `npm run artifacts -- --out <dir> --plugin-url <url>` (dist/ is built by the run's pretest); the repo guard holds the
// clone unchanged by it. The folder is served by a plain HTTP server on 127.0.0.1, as a team's release server would
// serve it, and the programs of the release's users run with no Node.js to be found on PATH: the engine downloads the
// plugin binary from that server and installs it.
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { ApiServer, startApiServer } from "../../server/api-server";
import { archiveName, binaryName, pathWithoutNode } from "../../scripts/plugin-binary";
import { TestStack } from "../../scripts/stack";
import { builtCli, cacheDir, pins, repoRoot } from "../../scripts/toolchain";
import { buildVersion } from "../../scripts/version";
import { installConsumer } from "../../scripts/consumer";
import { yamlHostDir, yamlPath } from "../../scripts/yaml-program";
import { ok, run } from "../support/cli-project";
import { filesUnder, hits, secretsOf, withEncodings } from "../support/secrets";

// The build's versions (npm, Python, Go): the release's on its commit, a pre-release elsewhere.
const { semver, python: py, go } = buildVersion();
const v = semver.replace(/\+.*/, ""); // the plugin's, without the commit (docs/decisions.md)
const out = fs.mkdtempSync(path.join(os.tmpdir(), "psu-release-"));
const archive = path.join(out, archiveName(v));
/** The release server: the folder's files by name, each GET recorded. */
const served: string[] = [];
const server = http.createServer((req, res) => {
  served.push(`${req.method} ${req.url}`);
  const file = path.join(out, decodeURIComponent(new URL(req.url!, "http://x").pathname));
  if (!file.startsWith(out + path.sep) || !fs.existsSync(file) || !fs.statSync(file).isFile()) {
    res.writeHead(404).end();
    return;
  }
  res.writeHead(200, { "content-length": fs.statSync(file).size });
  fs.createReadStream(file).pipe(res);
});
let url = "";
let api: ApiServer;
const token = `release-token-${Math.random().toString(36).slice(2, 12)}`;

beforeAll(async () => {
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  execFileSync(process.execPath, ["dist/scripts/artifacts.js", "--out", out, "--plugin-url", url], {
    cwd: repoRoot,
    stdio: "inherit",
  });
  api = await startApiServer({ token });
});
afterAll(async () => {
  if (server.listening) await new Promise((done) => server.close(done));
  await api?.close();
  fs.rmSync(out, { recursive: true, force: true });
});

test("npm run artifacts writes each artifact of the version, SHA256SUMS last, and each installs from that folder alone", () => {
  const at = "go/github.com/pulumi-storage-user/pulumi-storage-user/sdk/go/@v/";
  const files = (fs.readdirSync(out, { recursive: true }) as string[]).filter(
    (f) => !fs.statSync(path.join(out, f)).isDirectory(),
  );
  expect(files.sort()).toStrictEqual([
    "README.md",
    "SHA256SUMS",
    ...["list", `${go}.info`, `${go}.mod`, `${go}.zip`].map((f) => at + f),
    archiveName(v),
    `pulumi-storage-user-${semver}.tgz`,
    `pulumi_storage_user-${py}-py3-none-any.whl`,
    `pulumi_storage_user-${py}.tar.gz`,
    "storage-user.yaml",
  ]);
  const checked = execFileSync("sha256sum", ["--check", "--strict", "SHA256SUMS"], { cwd: out, encoding: "utf8" });
  expect(checked.split("\n").filter((l) => l.endsWith(": OK")).length).toBe(10);
  // Written last: no file of the folder is newer.
  const sums = fs.statSync(path.join(out, "SHA256SUMS")).mtimeMs;
  expect(files.filter((f) => fs.statSync(path.join(out, f)).mtimeMs > sums)).toStrictEqual([]);
  expect([
    fs.readFileSync(path.join(out, at, "list"), "utf8"),
    fs.readFileSync(path.join(out, at, `${go}.mod`), "utf8"),
  ]).toStrictEqual([`${go}\n`, fs.readFileSync(path.join(repoRoot, "sdk/go/go.mod"), "utf8")]);
  // The archive: the executable alone, native; the SDKs and the YAML declaration carry the release's URL.
  expect(execFileSync("tar", ["-tzf", archive], { encoding: "utf8" })).toBe(`${binaryName}\n`);
  const unpacked = fs.mkdtempSync(path.join(os.tmpdir(), "psu-unpacked-"));
  execFileSync("tar", ["-xzf", archive, "-C", unpacked]);
  expect(execFileSync("file", ["-b", path.join(unpacked, binaryName)], { encoding: "utf8" })).toMatch(
    /^ELF 64-bit LSB (pie )?executable, x86-64/,
  );
  fs.rmSync(unpacked, { recursive: true, force: true });
  const plugin = { resource: true, name: "storage-user", version: v, server: url };
  const wheel = execFileSync(
    "unzip",
    ["-p", path.join(out, `pulumi_storage_user-${py}-py3-none-any.whl`), "pulumi_storage_user/pulumi-plugin.json"],
    { encoding: "utf8" },
  );
  const goZip = execFileSync(
    "unzip",
    [
      "-p",
      path.join(out, at, `${go}.zip`),
      `github.com/pulumi-storage-user/pulumi-storage-user/sdk/go@${go}/storageuser/pulumi-plugin.json`,
    ],
    { encoding: "utf8" },
  );
  expect([JSON.parse(wheel), JSON.parse(goZip)]).toStrictEqual([plugin, plugin]);
  expect(fs.readFileSync(path.join(out, "storage-user.yaml"), "utf8")).toBe(
    `packageDeclarationVersion: 1\nname: storage-user\nversion: ${v}\ndownloadUrl: ${url}\n`,
  );
});

/** A PATH of a CLI, `hosts` and a shell's few tools, on which no `node` is found (checked with the shell itself). */
function nodelessPath(cli: string, hosts: string[] = []): string {
  const PATH = pathWithoutNode([builtCli(cli), ...hosts]);
  const which = execFileSync("sh", ["-c", "command -v node || echo none"], { env: { PATH }, encoding: "utf8" });
  expect(which).toBe("none\n");
  return PATH;
}

test("a YAML program with no plugins block: the engine downloads the plugin binary from the release server, and it runs with no Node.js on PATH", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "psu-yaml-release-"));
  fs.mkdirSync(path.join(dir, "sdks"));
  fs.copyFileSync(path.join(out, "storage-user.yaml"), path.join(dir, "sdks", "storage-user.yaml"));
  fs.writeFileSync(
    path.join(dir, "Pulumi.yaml"),
    [
      "name: release-yaml\nruntime: yaml\nresources:\n  app:\n    type: storage-user:index:StorageUser",
      "    properties:\n      userName: release-yaml-app\noutputs:\n  userId: ${app.userId}\n  s3: ${app.s3}\n",
    ].join("\n"),
  );
  const stack = await TestStack.create({
    programDir: dir,
    config: { "storage-user:baseUrl": api.url },
    secrets: { "storage-user:accessToken": token },
    env: { PATH: nodelessPath(pins.cli, [yamlHostDir()]), PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: undefined },
  });
  try {
    served.length = 0;
    const preview = ok(await stack.preview());
    expect(preview.output).toMatch(/\+ 2 to create/);
    expect(api.requests.length).toBe(0);
    expect(served).toStrictEqual([`GET /${archiveName(v)}`]);
    const home = path.join(stack.workDir, "home");
    expect(fs.statSync(path.join(home, "plugins", `resource-storage-user-v${v}`, binaryName)).mode & 0o111).not.toBe(0);
    const up = ok(await stack.up());
    expect(api.users.map((u) => u.Name)).toStrictEqual(["release-yaml-app"]);
    const outputs = ok(await stack.run(["stack", "output", "--json"]));
    expect(JSON.parse(outputs.stdout)).toStrictEqual({ userId: api.users[0].Id, s3: "[secret]" });
    const again = ok(await stack.up());
    expect([api.requests.length, served.length]).toStrictEqual([1, 1]);
    const needles = withEncodings([["the API token", token], ...secretsOf(api.users[0])]);
    const kept = [...filesUnder(path.join(stack.workDir, "backend")), ...filesUnder(home)];
    expect(kept.length).toBeGreaterThan(3);
    const said: [string, string][] = [
      ["the commands' output", preview.output + up.output + again.output + outputs.output],
    ];
    expect(hits([...kept.filter(([f]) => !f.endsWith(binaryName)), ...said], needles)).toStrictEqual([]);
  } finally {
    await stack.dispose();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("a YAML project made for 0.6.0 (plugins.providers to the npm package's bin/) moves to the binary: the user unchanged, no request", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "psu-yaml-upgrade-"));
  const program =
    "resources:\n  app:\n    type: storage-user:index:StorageUser\n    properties:\n      userName: upgrade-app\n";
  const bin = path.join(installConsumer(), "node_modules", "pulumi-storage-user", "bin");
  fs.writeFileSync(
    path.join(dir, "Pulumi.yaml"),
    `name: release-upgrade\nruntime: yaml\nplugins:\n  providers:\n    - name: storage-user\n      path: ${bin}\n${program}`,
  );
  const stack = await TestStack.create({
    programDir: dir,
    config: { "storage-user:baseUrl": api.url },
    secrets: { "storage-user:accessToken": token },
    env: { PATH: yamlPath() },
  });
  try {
    ok(await stack.up());
    const requests = api.requests.length;
    // The user as stored, its secrets decrypted (each write encrypts anew), and the provider it points at.
    const users = async () =>
      (await stack.exportState(true)).deployment.resources!.filter((r) => r.type === "storage-user:index:StorageUser");
    const withoutProvider = (rs: Record<string, unknown>[]) => rs.map(({ provider: _provider, ...r }) => r);
    const before = await users();
    // As CHANGELOG's upgrade notes say: the plugins block out, the release's package declaration in.
    fs.writeFileSync(path.join(dir, "Pulumi.yaml"), `name: release-upgrade\nruntime: yaml\n${program}`);
    fs.mkdirSync(path.join(dir, "sdks"));
    fs.copyFileSync(path.join(out, "storage-user.yaml"), path.join(dir, "sdks", "storage-user.yaml"));
    const nodeless = {
      PATH: nodelessPath(pins.cli, [yamlHostDir()]),
      PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: undefined,
    };
    const preview = ok(await stack.preview(["--diff"], { env: nodeless }));
    expect(preview.output).toMatch(/\n\s+2 unchanged\n/);
    const up = ok(await stack.up([], { env: nodeless }));
    expect(up.output).toMatch(/\n\s+2 unchanged\n/);
    expect(api.requests.length).toBe(requests);
    // The user is the same; the engine records it under the default provider of the version and URL the program now
    // names, as for any package a program names so.
    const after = await users();
    expect(withoutProvider(after)).toStrictEqual(withoutProvider(before));
    expect([before[0].provider, after[0].provider]).toStrictEqual([
      expect.stringMatching(/::pulumi:providers:storage-user::default::/),
      expect.stringContaining(`::pulumi:providers:storage-user::default_${v.replace(/[.-]/g, "_")}_http_/127.0.0.1_`),
    ]);
  } finally {
    await stack.dispose();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

/**
 * A service of `language` on the Automation API (test/programs/release), run as `<command> preview|up <work dir>` with
 * no Node.js on PATH and the settings in its environment: a preview (no token, no request), an up, a second up. The
 * engine installs the plugin from the release server once.
 */
async function serviceRuns(language: "python" | "go", command: string[], extraEnv: NodeJS.ProcessEnv = {}) {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), `psu-release-${language}-`));
  fs.mkdirSync(path.join(work, "backend"));
  fs.mkdirSync(path.join(work, "workspace"));
  const env = {
    ...extraEnv,
    PATH: nodelessPath(pins.cliNewest), // the CLI the Go and Python tests run (test/support/tenants.ts)
    HOME: work,
    PULUMI_HOME: path.join(work, "home"),
    PULUMI_BACKEND_URL: `file://${path.join(work, "backend")}`,
    PULUMI_CONFIG_PASSPHRASE: "release-passphrase",
    PULUMI_SKIP_UPDATE_CHECK: "true",
    STORAGE_API_URL: api.url,
  };
  const sh = (args: string[], withToken: boolean) =>
    run(command[0], [...command.slice(1), ...args], {
      cwd: work,
      env: withToken ? { ...env, STORAGE_ACCESS_TOKEN: token } : env,
    });
  const [requests, users] = [api.requests.length, api.users.length];
  try {
    served.length = 0;
    const preview = ok(await sh(["preview", path.join(work, "workspace")], false));
    expect(JSON.parse(preview.output.trim().split("\n").pop()!)).toStrictEqual({ changes: { create: 2 } });
    expect([api.requests.length, served]).toStrictEqual([requests, [`GET /${archiveName(v)}`]]);
    const up = ok(await sh(["up", path.join(work, "workspace")], true));
    const user = api.users[users];
    expect(user.Name).toBe(`release-${language}-app`);
    expect(JSON.parse(up.output.trim().split("\n").pop()!)).toStrictEqual({
      changes: { create: 2 },
      outputs: { userId: { secret: false, value: user.Id }, s3: { secret: true, value: null } },
    });
    const again = ok(await sh(["up", path.join(work, "workspace")], true));
    expect(JSON.parse(again.output.trim().split("\n").pop()!).changes).toStrictEqual({ same: 2 });
    expect([api.requests.length, served.length]).toStrictEqual([requests + 1, 1]);
    const needles = withEncodings([["the API token", token], ...secretsOf(user)]);
    const kept = [
      ...filesUnder(path.join(work, "backend")),
      ...filesUnder(path.join(work, "workspace")),
      ...filesUnder(path.join(work, "home")),
    ];
    expect(kept.length).toBeGreaterThan(3);
    const said: [string, string][] = [["the service's output", preview.output + up.output + again.output]];
    expect(hits([...kept.filter(([f]) => !f.endsWith(binaryName)), ...said], needles)).toStrictEqual([]);
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

test("a Python service (Automation API, the release's wheel) with no plugins block and no Node.js: the engine installs the plugin", async () => {
  const pulumiWheels = path.join(
    execFileSync("bash", [path.join(repoRoot, "tools/toolchain/python.sh")], { encoding: "utf8" })
      .trim()
      .split("\n")
      .pop()!,
    "wheels",
  );
  const venv = fs.mkdtempSync(path.join(os.tmpdir(), "psu-release-venv-"));
  try {
    execFileSync("python3", ["-m", "venv", venv]);
    execFileSync(path.join(venv, "bin/pip"), [
      ...["install", "--quiet", "--no-index", "--find-links", out, "--find-links", pulumiWheels],
      `pulumi_storage_user==${py}`,
    ]);
    await serviceRuns("python", [
      path.join(venv, "bin/python"),
      path.join(repoRoot, "test/programs/release/service.py"),
    ]);
  } finally {
    fs.rmSync(venv, { recursive: true, force: true });
  }
});

test("a Go service (Automation API, the module through GOPROXY=file://) with no plugins block and no Node.js: the engine installs the plugin", async () => {
  const modulePath = "github.com/pulumi-storage-user/pulumi-storage-user/sdk/go";
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "psu-release-go-"));
  try {
    // examples/go's requirements and sums, without its replace: the module at this release, as a team's go.mod has it.
    const goMod = fs
      .readFileSync(path.join(repoRoot, "examples/go/go.mod"), "utf8")
      .replace(/^module tenants$/m, "module releaseservice")
      .replace(/^(\/\/.*\n)?replace .*\n/m, "")
      .replace(`${modulePath} v0.0.0-00010101000000-000000000000`, `${modulePath} ${go}`);
    fs.writeFileSync(path.join(dir, "go.mod"), goMod);
    fs.copyFileSync(path.join(repoRoot, "examples/go/go.sum"), path.join(dir, "go.sum"));
    fs.copyFileSync(path.join(repoRoot, "test/programs/release/main.go"), path.join(dir, "main.go"));
    const machineCache = execFileSync("go", ["env", "GOMODCACHE"], { encoding: "utf8" }).trim();
    // The module cache `npm run artifacts` builds its Go check in (its compiled packages are then in Go's build cache),
    // without this module, so the release's copy is the one taken.
    const modCache = path.join(cacheDir, "artifacts-gomodcache");
    for (const p of [modCache, path.join(modCache, "cache/download")].map((d) =>
      path.join(d, "github.com/pulumi-storage-user"),
    )) {
      if (fs.existsSync(p)) execFileSync("chmod", ["-R", "u+w", p]); // the module cache's files are read-only
      fs.rmSync(p, { recursive: true, force: true });
    }
    execFileSync("go", ["build", "-o", path.join(dir, "service"), "."], {
      cwd: dir,
      env: {
        ...process.env,
        // The release's folder as the module's proxy; the rest from the machine's module cache, so nothing is fetched.
        GOPROXY: `file://${path.join(out, "go")},file://${path.join(machineCache, "cache/download")}`,
        GONOSUMDB: modulePath,
        GOFLAGS: "-mod=mod",
        GOMODCACHE: modCache,
        GOTOOLCHAIN: "local",
        GOWORK: "off",
      },
    });
    await serviceRuns("go", [path.join(dir, "service")]);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("pulumi plugin install --file installs the archive with the release server stopped", async () => {
  await new Promise((done) => server.close(done));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "psu-install-file-"));
  fs.writeFileSync(path.join(dir, "Pulumi.yaml"), "name: install-file\nruntime: yaml\n");
  const stack = await TestStack.create({ programDir: dir, env: { PATH: nodelessPath(pins.cli) } });
  try {
    ok(await stack.run(["plugin", "install", "resource", "storage-user", v, "--file", archive]));
    const listed = ok(await stack.run(["plugin", "ls", "--json"]));
    const plugins = JSON.parse(listed.stdout) as { name: string; kind: string; version: string }[];
    expect(plugins.map((p) => [p.name, p.kind, p.version])).toStrictEqual([["storage-user", "resource", v]]);
  } finally {
    await stack.dispose();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
