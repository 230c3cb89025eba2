// The language host as the unmodified CLI drives it: plain `pulumi` with the host on PATH runs
// the program in a Node.js process of its own through the SDK's cmd/run, with the runtime options
// of Pulumi.yaml and the user's NODE_OPTIONS, type-checks TypeScript, lets go of a program that
// leaves a process behind, runs plugins and policy packs (RunPlugin; policy packs in
// test/e2e/engine/policy-pack.test.ts), and answers the other RPCs the CLI calls (About,
// GetProgramDependencies from the lock file, GetRequiredPackages). Written against the stand-in
// (tools/language-host) and checked against the Go host: see hostProcess().
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { locateCli, repoRoot, TestStack } from "../../scripts/stack";
import { layOutInstall, nodeBinDir, packageManagerBinDir, pins, userPath } from "../../scripts/toolchain";
import { splitArgs } from "../../tools/language-host/options";
import { configJson } from "../../tools/language-host/runtime";

const programDir = path.join(repoRoot, "test", "programs", "host-probe");
const standInMain = path.join(repoRoot, "dist", "tools", "language-host", "main.js");
let stack: TestStack;

/**
 * How the host the CLI starts shows in `ps`: the stand-in's launcher execs node on main.js; a
 * real host is its binary. (Run with PULUMI_STORAGE_USER_CLI_DIR at a directory holding a real
 * `pulumi-language-nodejs`, this file tests that host: every test here must pass on both.)
 */
function hostProcess(): string {
  const host = path.join(locateCli(), "pulumi-language-nodejs");
  return fs.readFileSync(host).subarray(0, 2).toString() === "#!" ? standInMain : host;
}

beforeAll(async () => {
  stack = await TestStack.create({
    programDir,
    config: { "host-probe:greeting": "hello" },
    secrets: { "host-probe:hidden": "s3cr3t-probe" },
  });
});
afterAll(async () => {
  await stack?.dispose();
});

describe("pulumi up through the host", () => {
  test("the program runs in its own node process under the host, on the Node.js from PATH, with nodeargs", async () => {
    const up = await stack.up();
    expect(up.code, up.output).toBe(0);
    // The CLI took the host as bundled (next to `pulumi`): no "using ... from $PATH" warning.
    expect(up.output).not.toContain("from $PATH");
    const out = await stack.outputs(true);
    expect(out.pid).not.toBe(process.pid);
    expect(out.parent).toContain(hostProcess());
    // cmd/run of the program's own @pulumi/pulumi (the consumer install the program resolves).
    expect(out.entry).toBe(
      fs.realpathSync(path.join(stack.programDir, "..", "node_modules", "@pulumi", "pulumi", "cmd", "run", "index.js")),
    );
    expect(out.nodeVersion).toBe(`v${pins.mainNode}`);
    expect(out.execArgv).toEqual(["--max-old-space-size=333", "--no-deprecation"]);
    expect(out).toMatchObject({
      typescript: "true",
      greeting: "hello",
      secretIsSecret: true,
      project: "host-probe",
      stack: stack.stackName,
      dryRunSeen: false,
    });
    const shown = await stack.must(["stack", "output", "--show-secrets"]);
    expect(stack.stateFileText()).not.toContain("s3cr3t-probe");
    expect(shown.stdout).not.toContain("s3cr3t-probe");
  });

  test("a TypeScript type error fails preview with the type checker's message", async () => {
    const preview = await stack.preview(["--config", "host-probe:mode=type-error"]);
    expect(preview.code).not.toBe(0);
    expect(preview.output).toMatch(/TS2322.*Type 'string' is not assignable to type 'number'/);
    expect(preview.output).toContain("type-error.ts");
  });

  test("an error the program reports is shown once, without the host's exit-code line (bail)", async () => {
    const preview = await stack.preview(["--config", "host-probe:mode=throw"]);
    expect(preview.code).not.toBe(0);
    expect(preview.output).toContain("probe failed on purpose");
    expect(preview.output).not.toContain("Program exited with non-zero exit code");
  });

  test("the user's NODE_OPTIONS reaches the program and what the host starts, never the host's own process", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "psu-preload-"));
    try {
      // A preload as users have them (tracing, dotenv...): it records each process it loads into.
      const log = path.join(dir, "loaded.jsonl");
      fs.writeFileSync(
        path.join(dir, "record.js"),
        `require("fs").appendFileSync(${JSON.stringify(log)}, JSON.stringify(process.argv) + "\\n"); globalThis.__psuPreloaded = true; process.stderr.write("preload: loaded\\n");`,
      );
      const nodeOptions = `--require ${path.join(dir, "record.js")}`;
      await stack.must(["config", "rm", "host-probe:mode"]); // `preview --config` above saved one
      const up = await stack.up([], { env: { NODE_OPTIONS: nodeOptions } });
      expect(up.code, up.output).toBe(0);
      const out = await stack.outputs();
      expect(out).toMatchObject({ nodeOptions, preloaded: true });
      const loaded: string[][] = fs
        .readFileSync(log, "utf8")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l));
      expect(loaded.some((argv) => argv[1] === out.entry)).toBe(true);
      expect(loaded.filter((argv) => argv.includes(standInMain))).toEqual([]);

      // A preload printing on stdout breaks what the host reads from a `node -e` it runs (the run
      // script's path), as with the Go host; the port handshake is not touched, so the program ran.
      fs.writeFileSync(path.join(dir, "noisy.js"), `process.stdout.write("noisy preload\\n");`);
      const noisy = await stack.preview([], { env: { NODE_OPTIONS: `--require ${path.join(dir, "noisy.js")}` } });
      expect(noisy.code).not.toBe(0);
      expect(noisy.output).toMatch(/Cannot find module '[^']*noisy preload\n/);
      expect(noisy.output).not.toMatch(/could not read plugin \[.*\] port|failed to load language plugin/i);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test("a process the program leaves running holding its stdout does not keep the run going: 5 s after the program, the run ends", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "psu-orphan-"));
    const pidFile = path.join(dir, "pid");
    let pid = 0;
    try {
      const preview = await stack.preview([
        "--config",
        "host-probe:mode=orphan",
        "--config",
        `host-probe:pidFile=${pidFile}`,
      ]);
      pid = Number(fs.readFileSync(pidFile, "utf8"));
      expect(() => process.kill(pid, 0), "the left-behind process still runs").not.toThrow();
      // Go's cmd.WaitDelay: the pipes are closed, and a clean exit is reported as this error.
      expect(preview.code).not.toBe(0);
      expect(preview.output).toContain(
        "Problem executing program (could not run language executor): exec: WaitDelay expired before I/O complete",
      );
    } finally {
      if (pid) process.kill(pid, "SIGKILL");
      fs.rmSync(dir, { recursive: true, force: true });
      await stack.must(["config", "rm", "host-probe:mode"]);
    }
  });
});

describe("the other RPCs the CLI calls", () => {
  test("pulumi about: About, and GetProgramDependencies from the lock file (npm, pnpm, yarn) found above the program", async () => {
    const about = await stack.must(["about", "--json"]);
    const info = JSON.parse(about.stdout);
    expect(info.runtime).toEqual({
      language: "nodejs",
      executable: path.join(nodeBinDir(), "node"),
      version: `v${pins.mainNode}`,
      packagemanager: "npm",
      packagemanagerVersion: expect.stringMatching(/^\d+\.\d+\.\d+$/),
    });
    const withManagers = { PATH: userPath(undefined, [packageManagerBinDir("pnpm"), packageManagerBinDir("yarn")]) };
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "psu-about-"));
    try {
      for (const pm of ["npm", "pnpm", "yarn"] as const) {
        // A project installed from the registry; its program one directory down, as in a monorepo.
        const project = path.join(dir, pm);
        fs.mkdirSync(path.join(project, "infra"), { recursive: true });
        fs.writeFileSync(
          path.join(project, "package.json"),
          JSON.stringify({
            name: `about-${pm}`,
            private: true,
            dependencies: { ms: "2.1.3" },
            devDependencies: { "is-number": "7.0.0" },
          }),
        );
        fs.writeFileSync(path.join(project, "infra", "Pulumi.yaml"), `name: about-${pm}\nruntime: nodejs\n`);
        execFileSync(pm, ["install"], {
          cwd: project,
          env: { ...process.env, ...withManagers, npm_config_loglevel: "error" },
          stdio: ["ignore", "pipe", "pipe"],
          timeout: 240_000,
        });
        // What is installed does not count: the lock file does.
        fs.rmSync(path.join(project, "node_modules"), { recursive: true, force: true });
        const probe = await TestStack.create({
          programDir: path.join(project, "infra"),
          shareBackendWith: stack,
          stackName: `${stack.stackName}-${pm}`,
          env: withManagers,
        });
        try {
          const res = JSON.parse((await probe.must(["about", "--json"])).stdout);
          expect(res.runtime.packagemanager, pm).toBe(pm);
          expect(res.dependencies, pm).toEqual([
            { name: "is-number", version: "7.0.0" },
            { name: "ms", version: "2.1.3" },
          ]);
          // No lock file above the program: the host says so (npm's name for it, the fallback manager).
          fs.rmSync(path.join(project, { npm: "package-lock.json", pnpm: "pnpm-lock.yaml", yarn: "yarn.lock" }[pm]));
          const none = await probe.run(["about", "--json"]);
          expect(none.output, pm).toContain(
            `no package-lock.json found (searching upwards from ${path.join(project, "infra")})`,
          );
        } finally {
          await probe.dispose();
        }
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test("RunPlugin: a tool plugin written in Node.js runs with the CLI's environment and working directory; its exit code is reported", async () => {
    const plugin = path.join(repoRoot, "test", "programs", "tool-plugin");
    const run = await stack.run(["plugin", "run", plugin, "a"], { env: { TOOL_PLUGIN_PROBE: "from-the-cli" } });
    expect(run.code, run.output).toBe(0);
    expect(
      JSON.parse(
        run.stdout
          .trim()
          .split("\n")
          .find((l) => l.startsWith("{"))!,
      ),
    ).toEqual({ args: ["a"], cwd: stack.programDir, probe: "from-the-cli" });
    expect(run.stderr).toContain("tool plugin: on stderr");
    const failing = await stack.run(["plugin", "run", plugin, "fail"]);
    expect(failing.code).not.toBe(0);
    expect(failing.output).toContain("Program exited with non-zero exit code: 3");
  });

  test("pulumi install: InstallDependencies runs npm, then the plugins GetRequiredPackages names are fetched", async () => {
    // A package declaring a Pulumi resource plugin, served from a plugin server on 127.0.0.1 that
    // only records what the CLI asks for: the name, version and server come from the host.
    const asked: string[] = [];
    const pluginServer = http.createServer((req, res) => {
      asked.push(req.url ?? "");
      res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => pluginServer.listen(0, "127.0.0.1", resolve));
    const { port } = pluginServer.address() as AddressInfo;
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "psu-host-install-"));
    try {
      fs.cpSync(programDir, path.join(dir, "program"), { recursive: true });
      const fake = path.join(dir, "fake");
      fs.mkdirSync(fake);
      fs.writeFileSync(
        path.join(fake, "package.json"),
        JSON.stringify({
          name: "@acme/fake",
          version: "1.2.3",
          pulumi: { resource: true, name: "acmefake", server: `http://127.0.0.1:${port}/plugins` },
        }),
      );
      const tgz = execFileSync("npm", ["pack", "--silent", "--pack-destination", path.join(dir, "program")], {
        cwd: fake,
        encoding: "utf8",
      }).trim();
      fs.writeFileSync(
        path.join(dir, "program", "package.json"),
        JSON.stringify({ name: "probe", private: true, dependencies: { "@acme/fake": `file:./${tgz}` } }),
      );
      const probe = await TestStack.create({
        programDir: path.join(dir, "program"),
        shareBackendWith: stack,
        stackName: `${stack.stackName}-inst`,
      });
      try {
        const install = await probe.run(["install"]);
        expect(install.output).toContain("Installing dependencies...");
        expect(install.output).toContain("Finished installing dependencies");
        expect(fs.existsSync(path.join(dir, "program", "node_modules", "@acme", "fake", "package.json"))).toBe(true);
        expect(install.code).not.toBe(0);
        expect(
          asked.some((u) => u.startsWith("/plugins/pulumi-resource-acmefake-v1.2.3-linux-")),
          asked.join("\n"),
        ).toBe(true);
        // Only the local plugin server was asked: no fallback download from elsewhere.
        expect(install.output).not.toMatch(/get\.pulumi\.com|github\.com/);
      } finally {
        await probe.dispose();
      }
    } finally {
      pluginServer.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test("the host is the repo's stand-in unless a real one is on PATH", () => {
    // The layout made in a scratch directory, once with a real host on PATH, once without.
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "psu-layout-"));
    try {
      fs.writeFileSync(path.join(tmp, "pulumi"), "");
      const real = path.join(tmp, "real-bin");
      fs.mkdirSync(real);
      fs.writeFileSync(path.join(real, "pulumi-language-nodejs"), "#!/bin/sh\n", { mode: 0o755 });
      layOutInstall(path.join(tmp, "a"), path.join(tmp, "pulumi"), real);
      expect(fs.existsSync(path.join(tmp, "a", "pulumi-language-nodejs"))).toBe(false);
      expect(fs.existsSync(path.join(tmp, "a", "pulumi-resource-pulumi-nodejs"))).toBe(true);
      layOutInstall(path.join(tmp, "b"), path.join(tmp, "pulumi"), "/usr/bin");
      const launcher = path.join(tmp, "b", "pulumi-language-nodejs");
      expect(fs.readFileSync(launcher, "utf8")).toContain("language-host/main.js");
      // The launcher moves NODE_OPTIONS aside for the host's own Node.js (main.ts puts it back).
      const env = execFileSync("sh", ["-c", `sed 's|^exec node .*|env|' ${launcher} | sh`], {
        encoding: "utf8",
        env: { ...process.env, NODE_OPTIONS: "--require /x.js" },
      });
      expect(env).toContain("PULUMI_STORAGE_USER_HOST_NODE_OPTIONS=--require /x.js");
      expect(env).not.toMatch(/^NODE_OPTIONS=/m);
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });
});

describe("the host's translations, as the Go host does them", () => {
  test("config keys reach cmd/run as <namespace>:config:<name>", () => {
    expect(
      JSON.parse(
        configJson([
          ["storage:baseUrl", "u"],
          ["proj:config:x", "1"],
          ["a:b.c", "2"],
        ]),
      ),
    ).toEqual({
      "storage:config:baseUrl": "u",
      "proj:config:x": "1",
      "a:config:b.c": "2",
    });
    expect(() => configJson([["nonamespace", "v"]])).toThrow(/configuration key/);
  });

  test("nodeargs split like shlex", () => {
    expect(splitArgs(` --a=1  "--b=two words" 'c\\d' e\\ f `)).toEqual(["--a=1", "--b=two words", "c\\d", "e f"]);
    expect(splitArgs("")).toEqual([]);
    expect(() => splitArgs(`"open`)).toThrow(/closing quote/);
  });
});
