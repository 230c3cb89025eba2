// The language host stand-in (tools/language-host) as the unmodified CLI drives it: plain
// `pulumi` with the host on PATH runs the program in a Node.js process of its own through the
// SDK's cmd/run, with the runtime options of Pulumi.yaml, type-checks TypeScript, and answers the
// other RPCs the CLI calls (About, GetProgramDependencies, GetRequiredPackages).
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { locateCli, repoRoot, TestStack } from "../scripts/stack";
import { layOutInstall, nodeBinDir, pins } from "../scripts/toolchain";
import { configJson, splitArgs } from "../tools/language-host/runtime";

const programDir = path.join(repoRoot, "test", "programs", "host-probe");
let stack: TestStack;

beforeAll(async () => {
  stack = await TestStack.create({ programDir, config: { "host-probe:greeting": "hello" }, secrets: { "host-probe:hidden": "s3cr3t-probe" } });
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
    expect(out.parent).toContain(path.join(repoRoot, "dist", "tools", "language-host", "main.js"));
    // cmd/run of the program's own @pulumi/pulumi (the consumer install the program resolves).
    expect(out.entry).toBe(fs.realpathSync(path.join(programDir, "..", "node_modules", "@pulumi", "pulumi", "cmd", "run", "index.js")));
    expect(out.nodeVersion).toBe(`v${pins.mainNode}`);
    expect(out.execArgv).toEqual(["--max-old-space-size=333", "--no-deprecation"]);
    expect(out).toMatchObject({ typescript: "true", greeting: "hello", secretIsSecret: true, project: "host-probe", stack: stack.stackName, dryRunSeen: false });
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
});

describe("the other RPCs the CLI calls", () => {
  test("pulumi about: About and GetProgramDependencies", async () => {
    const about = await stack.must(["about", "--json"]);
    const info = JSON.parse(about.stdout);
    expect(info.runtime).toEqual({
      language: "nodejs",
      executable: path.join(nodeBinDir(), "node"),
      version: `v${pins.mainNode}`,
      packagemanager: "npm",
      packagemanagerVersion: expect.stringMatching(/^\d+\.\d+\.\d+$/),
    });
    // test/programs/package.json, the nearest above this program, declares no dependencies.
    expect(info.dependencies).toEqual([]);
    // examples/from-config declares two, installed in examples/node_modules.
    const example = await TestStack.create({ programDir: path.join(repoRoot, "examples", "from-config"), shareBackendWith: stack, stackName: `${stack.stackName}-ex` });
    try {
      const deps = JSON.parse((await example.must(["about", "--json"])).stdout).dependencies;
      expect(deps).toEqual([
        { name: "@pulumi/pulumi", version: require("@pulumi/pulumi/package.json").version },
        { name: "@types/node", version: expect.any(String) },
        { name: "pulumi-storage-user", version: require("../package.json").version },
        { name: "typescript", version: expect.any(String) },
      ]);
    } finally {
      await example.dispose();
    }
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
        JSON.stringify({ name: "@acme/fake", version: "1.2.3", pulumi: { resource: true, name: "acmefake", server: `http://127.0.0.1:${port}/plugins` } }),
      );
      const tgz = execFileSync("npm", ["pack", "--silent", "--pack-destination", path.join(dir, "program")], { cwd: fake, encoding: "utf8" }).trim();
      fs.writeFileSync(path.join(dir, "program", "package.json"), JSON.stringify({ name: "probe", private: true, dependencies: { "@acme/fake": `file:./${tgz}` } }));
      const probe = await TestStack.create({ programDir: path.join(dir, "program"), shareBackendWith: stack, stackName: `${stack.stackName}-inst` });
      try {
        const install = await probe.run(["install"]);
        expect(install.output).toContain("Installing dependencies...");
        expect(install.output).toContain("Finished installing dependencies");
        expect(fs.existsSync(path.join(dir, "program", "node_modules", "@acme", "fake", "package.json"))).toBe(true);
        expect(install.code).not.toBe(0);
        expect(asked.some((u) => u.startsWith("/plugins/pulumi-resource-acmefake-v1.2.3-linux-")), asked.join("\n")).toBe(true);
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
    const host = fs.readFileSync(path.join(locateCli(), "pulumi-language-nodejs"), "utf8");
    expect(host).toContain(path.join(repoRoot, "dist", "tools", "language-host", "main.js"));
    // The same layout made in a scratch directory, once with a real host on PATH, once without.
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
      expect(fs.readFileSync(path.join(tmp, "b", "pulumi-language-nodejs"), "utf8")).toContain("language-host/main.js");
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });
});

describe("the host's translations, as the Go host does them", () => {
  test("config keys reach cmd/run as <namespace>:config:<name>", () => {
    expect(JSON.parse(configJson([["storage:baseUrl", "u"], ["proj:config:x", "1"], ["a:b.c", "2"]]))).toEqual({
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
