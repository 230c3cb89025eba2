// The install matrix: each cell a separate user program that installs this package the way an
// infra repo does (the packed tarball, or the git URL), with its own package manager, SDK,
// Node.js and Pulumi CLI (the pinned one, or the newest the Go module proxy serves), and runs
// plain `pulumi` through the language host. Each axis is covered, not every
// product. Per cell: preview without a token sends nothing; up creates exactly one user; a second
// up (with --debug) sends nothing; the token and every credential appear 0 times in `stack
// export`, the raw state file and the --debug output; the `__provider` bytes are recorded.
// The README's matrix table is this run's: the last test checks it, and `npm run matrix`
// (scripts/install-matrix.ts) is what rewrites it. This file writes nothing in the repository.
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { ApiServer, startApiServer } from "../../server/api-server";
import { packWithHooks } from "../support/pack";
import { repoRoot, TestStack } from "../../scripts/stack";
import { nodeBinDir, packageManagerBinDir } from "../../scripts/toolchain";
import { Cell, CellResult, cells, matrixRows, readmeRows, resultsFileVariable } from "../../scripts/install-matrix";

const token = `matrix-token-${Date.now().toString(36)}`;
let tmp: string;
let tarball: string;
const results = new Map<string, CellResult>();

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "psu-matrix-"));
  tarball = packWithHooks(tmp).tarball;
});
afterAll(async () => {
  fs.rmSync(tmp, { recursive: true, force: true });
});

/** The git URL a user would give npm, pointing at this checkout's HEAD. */
function gitUrl(): string {
  const head = execFileSync("git", ["rev-parse", "HEAD"], { cwd: repoRoot, encoding: "utf8" }).trim();
  return `git+file://${repoRoot}#${head}`;
}

function install(cell: Cell, dir: string) {
  const env = {
    ...process.env,
    PATH: [nodeBinDir(cell.node), packageManagerBinDir("pnpm"), packageManagerBinDir("yarn"), process.env.PATH].join(
      path.delimiter,
    ),
    npm_config_loglevel: "error",
  };
  const spec = cell.from === "git" ? gitUrl() : `file:${tarball}`;
  const pj = JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8"));
  pj.dependencies = { "@pulumi/pulumi": cell.sdk, "pulumi-storage-user": spec };
  fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify(pj, null, 2));
  const args = {
    npm: ["install", "--no-audit", "--no-fund"],
    pnpm: ["install"],
    yarn: ["install", "--non-interactive"],
  }[cell.pm];
  try {
    execFileSync(cell.pm, args, {
      cwd: dir,
      env,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
      timeout: 240_000,
    });
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string };
    throw new Error(`${cell.pm} ${args.join(" ")} failed in ${cell.name}:\n${e.stdout}\n${e.stderr}`, { cause: err });
  }
}

describe.concurrent("install matrix", () => {
  for (const cell of cells) {
    test(`${cell.name}: ${cell.program}, ${cell.pm}, @pulumi/pulumi ${cell.sdk}, node ${cell.node}, pulumi ${cell.cli}, from the ${cell.from}`, async () => {
      const dir = path.join(tmp, cell.name);
      fs.cpSync(path.join(repoRoot, "test", "programs", "matrix", cell.program), dir, { recursive: true });
      fs.writeFileSync(
        path.join(dir, "Pulumi.yaml"),
        `name: ${cell.name}\nruntime: nodejs\ndescription: install-matrix cell\n`,
      );
      install(cell, dir);
      const installed = JSON.parse(
        fs.readFileSync(path.join(dir, "node_modules", "@pulumi", "pulumi", "package.json"), "utf8"),
      ).version;
      expect(installed).toBe(cell.sdk);

      const userName = `matrix-${cell.name}`;
      // One API per cell: the cells run at the same time and each counts its own requests.
      const api: ApiServer = await startApiServer({ token });
      const stack = await TestStack.create({
        programDir: dir,
        nodeVersion: cell.node,
        cliVersion: cell.cli,
        config: { "storage:baseUrl": api.url, [`${cell.name}:userName`]: userName },
      });
      try {
        const cliReported = (await stack.must(["version"])).stdout.trim();
        expect(cliReported).toBe(cell.cli);
        const preview = await stack.preview();
        expect(preview.code, preview.output).toBe(0);
        expect(api.requests.length, "preview sends no request").toBe(0);

        await stack.must(["config", "set", "--secret", "storage:accessToken"], { input: token });
        const up = await stack.up();
        expect(up.code, up.output).toBe(0);
        expect(api.requests.length, "up sends exactly one POST").toBe(1);
        const created = api.users.find((u) => u.Name === userName)!;
        expect(created).toBeDefined();

        const again = await stack.up(["--debug"]);
        expect(again.code, again.output).toBe(0);
        expect(api.requests.length, "a second up sends nothing").toBe(1);
        // The SDK's debug dump of registration answers is cut by provider/program/debug-redaction.ts: this
        // fails loudly if an SDK in the supported range changes that log line.
        expect(again.output).toContain("resp: [omitted: holds secret values]");

        const out = await stack.outputs(true);
        expect(out.userId).toBe(created.Id);
        expect(out.s3.secretKey).toBe(created.S3Connection.SecretKey);
        if (cell.program === "esm") expect(out.moduleKind).toBe("esm");

        const secrets = [
          token,
          created.Password,
          created.S3Connection.AccessKey,
          created.S3Connection.SecretKey,
          created.SwiftApiConnection.Password,
          created.FtpConnection.Password,
        ];
        const exported = (await stack.must(["stack", "export"])).stdout;
        for (const [where, text] of [
          ["stack export", exported],
          ["state file", stack.stateFileText()],
          ["up --debug", up.output + again.output],
        ] as const) {
          for (const s of secrets) expect(text.includes(s), `a secret in plain text in ${where}`).toBe(false);
        }
        const user = (
          JSON.parse(exported) as { deployment: { resources: Array<Record<string, any>> } }
        ).deployment.resources.find((r) => r.type === "pulumi-nodejs:dynamic/storage:StorageUser")!;
        const provider: string = user.outputs.__provider;
        expect(provider.match(/require\(/g), provider).toHaveLength(1);
        const nodeVersion = execFileSync(path.join(nodeBinDir(cell.node), "node"), ["--version"], {
          encoding: "utf8",
        }).trim();
        results.set(cell.name, {
          providerBytes: Buffer.byteLength(provider),
          nodeVersion,
          sdkInstalled: installed,
          cliReported,
        });
      } finally {
        await stack.dispose();
        await api.close();
      }
    });
  }
});

test("README.md's matrix table is this run's (`npm run matrix` rewrites it)", () => {
  expect([...results.keys()].sort(), "every row ran").toEqual(cells.map((c) => c.name).sort());
  const file = process.env[resultsFileVariable];
  if (file) fs.writeFileSync(file, JSON.stringify(Object.fromEntries(results)));
  // A stale table fails even when `npm run matrix` is about to rewrite it: the run it writes is this one.
  expect(
    readmeRows(),
    "README.md's install matrix differs from this run: run `npm run matrix` and commit README.md",
  ).toEqual(matrixRows(results));
});
