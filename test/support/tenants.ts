// Go and Python, one harness: examples/go and examples/python, the tenants service, one contract in two
// languages; examples/go-project and examples/python-project, configured alike.
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, expect } from "vitest";
import { ApiServer, startApiServer } from "../../server/api-server";
import { builtCli, nodeBinDir, pins, repoRoot } from "../../scripts/toolchain";
import { daysLater, ok, packedTarball, run, shBlocks } from "./cli-project";
import { filesUnder, hits, secretsOf, withEncodings } from "./secrets";
import { errorSaid, warningSaid } from "./said";

const plainToken = { key: "storage-user:accessToken", env: "STORAGE_ACCESS_TOKEN", path: false };

/** A `pulumi` in `dir` that appends each command line it is given to `dir/argv.log`, then runs the one in `cliDir`. */
export function argvLoggingCli(dir: string, cliDir: string): string {
  fs.mkdirSync(dir, { recursive: true });
  const log = JSON.stringify(path.join(dir, "argv.log"));
  const script = `#!/bin/sh\nprintf '%s\\n' "$*" >> ${log}\nexec ${JSON.stringify(path.join(cliDir, "pulumi"))} "$@"\n`;
  fs.writeFileSync(path.join(dir, "pulumi"), script, { mode: 0o755 });
  return dir;
}

/**
 * go.test.ts and python.test.ts: the API server, a work directory laid out as a clone (examples/<language>,
 * examples/<language>-project, sdk/<language>) and a user's shell, whose `pulumi` is the plain CLI v3.274.1 (no
 * language host on PATH) logging each command line. `extraEnv` adds to the shell's environment.
 */
export function tenantsHarness(language: "go" | "python", extraEnv: () => NodeJS.ProcessEnv = () => ({})) {
  const token = `${language}-example-token-${Math.random().toString(36).slice(2, 12)}`;
  const h = {
    token,
    withToken: { STORAGE_ACCESS_TOKEN: token },
    api: undefined as unknown as ApiServer,
    work: "",
    /** The PATH of the shell, unless `extraEnv` gives another. */
    path: "",
    env: {} as NodeJS.ProcessEnv,
    cli: () => path.join(h.work, "cli"),
    example: () => path.join(h.work, "examples", language),
    blocks: (example: string = language) => shBlocks(`examples/${example}/README.md`),
    /** What the README's first block exported, for the commands after it. */
    setup: `export STORAGE_USER_PLUGIN_DIR="$PWD/examples/${language}/plugins/node_modules/pulumi-storage-user/bin" PULUMI_BACKEND_URL="file://$PWD/examples/${language}/state"\n`,
    /** The plugin's refusal of a token set without --secret. */
    notSecret: errorSaid("CONFIG_NOT_SECRET", { ...plainToken, where: "not marked secret" }),
    /** The warning that a user of the service left the stack. */
    left: (u: { Id: number; Name: string }) =>
      warningSaid("USER_LEFT_STACK", {
        id: String(u.Id),
        userName: u.Name,
        service: new URL(h.api.url).href,
        failed: false,
      }),
    /** Runs a script as a user's shell would. */
    sh: (script: string, extra: NodeJS.ProcessEnv = {}) =>
      run("bash", ["-euo", "pipefail", "-c", script], { cwd: h.work, env: { ...h.env, ...extra } }),
    /** Edits a file as a user would (writing the result to `into`), after checking that it holds `from`. */
    edit(file: string, from: string, to: string, into = file) {
      const text = fs.readFileSync(file, "utf8");
      expect(text).toContain(from);
      fs.writeFileSync(into, text.split(from).join(to));
    },
    /** The second block of the example's README (onboard acme globex, onboard acme, rotate acme, offboard) did what it says. */
    expectTenantsRun(output: string) {
      // 2 onboarded, 0 for the second onboard, 1 for the rotation: the API only creates.
      expect(h.api.requests.map((q) => [q.method, q.authorized])).toEqual(Array(3).fill(["POST", true]));
      const [acme, globex, rotated] = h.api.users;
      expect([acme.Name, globex.Name, rotated.Name]).toEqual(["acme-storage", "globex-storage", "acme-storage-r1"]);
      // What the caller was handed: each tenant's env, on every onboard and after the rotation.
      const lines = fs.readFileSync(path.join(h.example(), "handed-over.jsonl"), "utf8").trim().split("\n");
      const handed = lines.map((l) => JSON.parse(l));
      expect(handed.map((h) => [h.tenant, h.userId])).toEqual([
        ["acme", acme.Id],
        ["globex", globex.Id],
        ["acme", acme.Id],
        ["acme", rotated.Id],
      ]);
      expect(handed[0].env.AWS_SECRET_ACCESS_KEY).toBe(acme.S3Connection.SecretKey);
      expect(handed[1].env.AWS_ACCESS_KEY_ID).toBe(globex.S3Connection.AccessKey);
      expect(handed[2].env).toEqual(handed[0].env);
      expect(handed[3].env.AWS_SECRET_ACCESS_KEY).toBe(rotated.S3Connection.SecretKey);
      for (const u of [acme, globex, rotated]) expect(output).toContain(h.left(u));
      // The token and every credential: nowhere in state, history, backups, the stacks' config, PULUMI_HOME or the
      // service's output (the hand-over went to the file).
      const needles = withEncodings([["the API token", h.token], ...h.api.users.flatMap(secretsOf)]);
      const kept = [
        ...filesUnder(path.join(h.example(), "state")),
        ...filesUnder(path.join(h.example(), "workspace")),
        ...filesUnder(path.join(h.work, "home")),
      ];
      expect(kept.length).toBeGreaterThan(5);
      // The command lines the service ran: the token reached the CLI, but not as an argument.
      const argv = fs.readFileSync(path.join(h.cli(), "argv.log"), "utf8");
      expect(argv).toContain("config set --secret --stack tenant-acme storage-user:accessToken\n");
      const said: [string, string][] = [
        ["the service's output", output],
        ["the pulumi command lines", argv],
      ];
      expect(hits([...kept, ...said], needles)).toEqual([]);
      expect(fs.readFileSync(path.join(h.example(), "workspace", "Pulumi.tenant-acme.yaml"), "utf8")).toMatch(
        /storage-user:accessToken:\n\s+secure:/,
      );
    },
    /**
     * TENANTS_ROTATE_AFTER=90d, as the README's last paragraph says, for tenant hooli (`tenants` runs the service in
     * examples/<language>): a user with a generated name; 89 days later onboard sends nothing and hands over the same
     * env; 91 days later one new user whose env is handed over, the old one named; then nothing again.
     */
    async expectScheduledRotation(tenants: string) {
      const handedOver = path.join(h.example(), "rotated.jsonl");
      const onboard = async (days: number) => {
        const before = h.api.createAttempts;
        const clock = days > 0 ? daysLater(days) : {};
        const env = { ...h.withToken, TENANTS_ROTATE_AFTER: "90d", ...clock };
        const r = ok(await h.sh(`${h.setup}${tenants} onboard hooli >> rotated.jsonl`, env));
        const last = fs.readFileSync(handedOver, "utf8").trim().split("\n").pop()!;
        return {
          sent: h.api.createAttempts - before,
          handed: JSON.parse(last) as { userId: number },
          output: r.output,
        };
      };
      const first = await onboard(0);
      const user = h.api.users.find((u) => u.Id === first.handed.userId)!;
      expect([first.sent, user.Name]).toStrictEqual([1, expect.stringMatching(/^storage-[0-9a-f]{7}$/)]);
      const early = await onboard(89);
      expect([early.sent, early.handed, early.output]).toStrictEqual([
        0,
        first.handed,
        expect.not.stringMatching(/ROTATION_DUE/),
      ]);
      const due = await onboard(91);
      const rotated = h.api.users.at(-1)!;
      expect([due.sent, due.handed]).toStrictEqual([
        1,
        {
          tenant: "hooli",
          userId: rotated.Id,
          env: expect.objectContaining({ AWS_SECRET_ACCESS_KEY: rotated.S3Connection.SecretKey }),
        },
      ]);
      expect(rotated.Name).not.toBe(user.Name);
      const old = { id: String(user.Id), userName: user.Name };
      expect(due.output).toContain(warningSaid("ROTATION_DUE", { ...old, age: "91d", period: "90d" }));
      expect(due.output).toContain(h.left(user));
      const after = await onboard(91);
      expect([after.sent, after.handed]).toStrictEqual([0, due.handed]);
    },
    /**
     * The backend under variant-state holds `stacks` (paths in it). The token is in none of its files, PULUMI_HOME or
     * `said`, but in each update's record in the history of a stack given it plain, in its config (docs/configuration.md).
     */
    expectNoTokenInVariantState(stacks: RegExp[], said: string) {
      const dir = path.join(h.work, "variant-state");
      const backend = filesUnder(dir);
      expect(backend.map(([f]) => path.relative(dir, f))).toEqual(
        expect.arrayContaining(stacks.map((s) => expect.stringMatching(s))),
      );
      const history = backend.filter(([f]) => /[\\/]history[\\/].*[\\/]tenant-plain-[^\\/]+\.history\.json$/.test(f));
      for (const [, text] of history) expect(JSON.stringify({ ...JSON.parse(text), config: 0 })).not.toContain(h.token);
      const places = [...backend, ...filesUnder(path.join(h.work, "home")), ["the services' output", said]];
      const found = hits(places as [string, string][], withEncodings([["the API token", h.token]]));
      expect(history.length).toBeGreaterThan(0);
      expect(found).toEqual(history.map(([f]) => `the API token in ${f}`));
    },
    /**
     * Runs the first block of examples/<language>-project's README: the stack's config then holds the base URL and the
     * token encrypted; the config file, the backend and the output hold no token; no request.
     */
    async configureProject() {
      const requests = h.api.requests.length;
      fs.mkdirSync(path.join(h.work, "project-state"));
      const backend = { PULUMI_BACKEND_URL: `file://${h.work}/project-state` };
      const r = ok(await h.sh(h.blocks(`${language}-project`)[0], { ...h.withToken, ...backend }));
      const stackFile = path.join(h.work, "examples", `${language}-project`, "Pulumi.dev.yaml");
      const config = fs.readFileSync(stackFile, "utf8");
      expect(config).toMatch(/storage-user:accessToken:\n\s+secure:/);
      expect(config).toContain(`storage-user:baseUrl: ${h.api.url}\n`);
      const kept: [string, string][] = [[stackFile, config], ...filesUnder(path.join(h.work, "project-state"))];
      expect(hits([...kept, ["the commands' output", r.output]], withEncodings([["the API token", h.token]]))).toEqual(
        [],
      );
      expect(h.api.requests.length).toBe(requests);
    },
  };
  beforeAll(async () => {
    h.api = await startApiServer({ token });
    h.work = fs.mkdtempSync(path.join(os.tmpdir(), `${language}-example-`));
    h.path = [argvLoggingCli(h.cli(), builtCli(pins.cliNewest)), nodeBinDir(), process.env.PATH].join(path.delimiter);
    h.env = {
      ...process.env,
      PATH: h.path,
      ...extraEnv(),
      PULUMI_HOME: path.join(h.work, "home"),
      PULUMI_CONFIG_PASSPHRASE: `${language}-example-passphrase`,
      PULUMI_SKIP_UPDATE_CHECK: "true",
      PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
      STORAGE_API_URL: h.api.url,
      STORAGE_USER_PKG: packedTarball(),
    };
    for (const k of ["STORAGE_ACCESS_TOKEN", "PULUMI_BACKEND_URL", "STORAGE_USER_PLUGIN_DIR", "TENANTS_WORK_DIR"])
      delete h.env[k];
    for (const dir of [`examples/${language}`, `examples/${language}-project`, `sdk/${language}`])
      fs.cpSync(path.join(repoRoot, dir), path.join(h.work, dir), { recursive: true });
    expect(execFileSync("pulumi", ["version"], { env: h.env, encoding: "utf8" }).trim()).toBe(pins.cliNewest);
    const dirs = h.env.PATH!.split(path.delimiter).filter((d) => fs.existsSync(d));
    expect(dirs.flatMap((d) => fs.readdirSync(d).filter((f) => f.startsWith("pulumi-language-")))).toEqual([]);
  });
  afterAll(async () => {
    await h.api?.close();
    if (h.work) fs.rmSync(h.work, { recursive: true, force: true });
  });
  return h;
}
