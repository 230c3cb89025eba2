// The install matrix (scripts/install-matrix.ts): each row a user's program installing the package
// (the tarball `npm pack` writes, hooks included, or the git URL) with its own package manager, SDK,
// Node.js and CLI: preview sends nothing, up creates one user, a second up --debug sends nothing, no
// secret in state, export or output. README's table is this run's (`npm run matrix` rewrites it).
import { execFileSync, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startApiServer } from "../../server/api-server";
import { repoRoot, TestStack } from "../../scripts/stack";
import { nodeBinDir, packageManagerBinDir } from "../../scripts/toolchain";
import { CellResult, cells, matrixRows, readmeRows, resultsFileVariable } from "../../scripts/install-matrix";
import { hits, secretsOf, withEncodings } from "../support/secrets";
import { copyCheckout, ok } from "../support/cli-project";

const token = `matrix-token-${Date.now().toString(36)}`;
let tmp: string;
let tarball: string;
let checkout: string;
const results = new Map<string, CellResult>();

beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "psu-matrix-"));
  // `npm pack` as a release runs it, hooks included (prepack builds and takes `prepare` out of
  // package.json, postpack puts it back: scripts/pack-manifest.cjs), in a copy of the files git
  // tracks or would track: the hooks rewrite files other test files read meanwhile.
  checkout = path.join(tmp, "checkout");
  copyCheckout(checkout, true);
  fs.symlinkSync(fs.realpathSync(path.join(repoRoot, "node_modules")), path.join(checkout, "node_modules"));
  const env = { ...process.env, npm_config_loglevel: "error" };
  const [packed] = JSON.parse(
    execFileSync("npm", ["pack", "--json", "--pack-destination", tmp], { cwd: checkout, encoding: "utf8", env }),
  );
  tarball = path.join(tmp, packed.filename);
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe.concurrent("install matrix", () => {
  for (const cell of cells) {
    test(`${cell.name}: ${cell.program}, ${cell.pm}, @pulumi/pulumi ${cell.sdk}, node ${cell.node}, pulumi ${cell.cli}, from the ${cell.from}`, async () => {
      const dir = path.join(tmp, cell.name);
      fs.cpSync(path.join(repoRoot, "test", "programs", "matrix", cell.program), dir, { recursive: true });
      fs.writeFileSync(path.join(dir, "Pulumi.yaml"), `name: ${cell.name}\nruntime: nodejs\n`);
      const head = execFileSync("git", ["rev-parse", "HEAD"], { cwd: repoRoot, encoding: "utf8" }).trim();
      const pj = JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8"));
      pj.dependencies = {
        "@pulumi/pulumi": cell.sdk,
        "pulumi-storage-user": cell.from === "git" ? `git+file://${repoRoot}#${head}` : `file:${tarball}`,
      };
      fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify(pj, null, 2));
      const args = {
        npm: ["install", "--no-audit", "--no-fund"],
        pnpm: ["install"],
        yarn: ["install", "--non-interactive"],
      }[cell.pm];
      const managers = [
        nodeBinDir(cell.node),
        packageManagerBinDir("pnpm"),
        packageManagerBinDir("yarn"),
        process.env.PATH,
      ];
      const install = spawnSync(cell.pm, args, {
        cwd: dir,
        encoding: "utf8",
        env: { ...process.env, PATH: managers.join(path.delimiter), npm_config_loglevel: "error" },
      });
      expect(install.status, `${cell.pm} ${args.join(" ")}:\n${install.stdout}${install.stderr}`).toBe(0);
      const read = (p: string) =>
        JSON.parse(fs.readFileSync(path.join(dir, "node_modules", p, "package.json"), "utf8"));
      const installed = read("@pulumi/pulumi").version;
      expect(installed).toBe(cell.sdk);
      // The tarball's package.json has no `prepare` (which only git installs need), so installing it runs no install script.
      if (cell.from === "tarball") expect(read("pulumi-storage-user").scripts?.prepare).toBeUndefined();

      const userName = `matrix-${cell.name}`;
      // One API per row: the rows run at the same time and each counts its own requests.
      const api = await startApiServer({ token });
      const stack = await TestStack.create({
        programDir: dir,
        nodeVersion: cell.node,
        cliVersion: cell.cli,
        config: { "storage:baseUrl": api.url, [`${cell.name}:userName`]: userName },
      });
      try {
        const cliReported = (await stack.must(["version"])).stdout.trim();
        expect(cliReported).toBe(cell.cli);
        ok(await stack.preview());
        expect(api.requests.length, "preview sends no request").toBe(0);
        await stack.must(["config", "set", "--secret", "storage:accessToken"], { input: token });
        const up = ok(await stack.up());
        const again = ok(await stack.up(["--debug"]));
        expect(api.requests.length, "up sends one POST, the second none").toBe(1);
        // The SDK's debug dump of registration answers is cut (provider/program/debug-redaction.ts):
        // this fails loudly if an SDK in the supported range changes that log line.
        expect(again.output).toContain("resp: [omitted: holds secret values]");
        const created = api.users.find((u) => u.Name === userName)!;
        const out = await stack.outputs(true);
        expect([out.userId, out.s3.secretKey]).toEqual([created.Id, created.S3Connection.SecretKey]);
        if (cell.program === "esm") expect(out.moduleKind).toBe("esm");
        const exported = (await stack.must(["stack", "export"])).stdout;
        const places: Array<[string, string]> = [
          ["stack export", exported],
          ["state file", stack.stateFileText()],
          ["up, up --debug", up.output + again.output],
        ];
        expect(hits(places, withEncodings([["token", token], ...secretsOf(created)]))).toEqual([]);
        const [user] = await stack.resources();
        const provider: string = user.outputs.__provider;
        expect(provider.match(/require\(/g), provider).toHaveLength(1);
        const nodeVersion = execFileSync(path.join(nodeBinDir(cell.node), "node"), ["--version"], { encoding: "utf8" });
        results.set(cell.name, {
          providerBytes: Buffer.byteLength(provider),
          nodeVersion: nodeVersion.trim(),
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

test("the pack hooks put package.json back; README.md's matrix table is this run's (`npm run matrix` rewrites it)", () => {
  expect(JSON.parse(fs.readFileSync(path.join(checkout, "package.json"), "utf8")).scripts.prepare).toBeDefined();
  expect([...results.keys()].sort(), "every row ran").toEqual(cells.map((c) => c.name).sort());
  const file = process.env[resultsFileVariable];
  if (file) fs.writeFileSync(file, JSON.stringify(Object.fromEntries(results)));
  // A stale table fails even when `npm run matrix` is about to rewrite it: the run it writes is this one.
  expect(readmeRows(), "README.md's install matrix is another run's: run `npm run matrix` and commit it").toEqual(
    matrixRows(results),
  );
});
