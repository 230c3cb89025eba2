// An interrupted `pulumi up` leaves no user on the server that the next up would create again, and
// after a force-stop (SIGKILL of the CLI's process group), `npx pulumi-storage-user pending` names
// exactly the users the service holds and the stack does not (docs/failure-modes.md). The harness
// starts `pulumi` in a process group of its own, as a shell starts a foreground job.
import { ChildProcess, execFileSync, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import * as fs from "node:fs";
import { createRequire } from "node:module";
import * as path from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { ApiServer, ApiServerOptions, startApiServer } from "../../../server/api-server";
import { installConsumer } from "../../../scripts/consumer";
import { TestStack } from "../../../scripts/stack";
import { userPath } from "../../../scripts/toolchain";
import { YamlUsers } from "../../../scripts/yaml-program";
import { Lang, ok, onNewestCli, usersStack, userType } from "../../support/cli-project";

const token = `interrupt-token-${randomBytes(6).toString("hex")}`;
/** Both paths' StorageUser types (pulumi-nodejs:dynamic/storage:…, storage-user:index:…). */
const TYPE = /:StorageUser$/;
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

const ps = (pid: number, format: string) =>
  spawnSync("ps", ["-o", `${format}=`, "-p", String(pid)], { encoding: "utf8" }).stdout.trim();
/** Pids of every descendant of `pid`, from one `ps`. */
function descendants(pid: number): number[] {
  const rows = execFileSync("ps", ["-eo", "pid=,ppid="], { encoding: "utf8" }).trim().split("\n");
  const pairs = rows.map((l) => l.trim().split(/\s+/).map(Number));
  const under = (p: number): number[] => pairs.filter(([, pp]) => pp === p).flatMap(([c]) => [c, ...under(c)]);
  return under(pid);
}
type Interrupted = Awaited<ReturnType<typeof interruptedUp>>;

/**
 * `pulumi up` of `users` from `lang`; once `ready(api)` holds, `act` interrupts. Then waits for the
 * server to store every user it received, and ends any process of this run still alive, by pid.
 */
async function interruptedUp(
  [lang, users]: [Lang, YamlUsers],
  server: Omit<ApiServerOptions, "token">,
  parallel: number,
  ready: (api: ApiServer) => boolean,
  act: (cli: ChildProcess, tree: Array<[number, string]>) => void,
) {
  const api = await startApiServer({ token, ...server });
  const stack = await usersStack(lang, users, token, { STORAGE_API_URL: api.url });
  cleanups.push(
    () => stack.dispose(),
    () => api.close(),
  );
  let cli: ChildProcess | undefined;
  /** The CLI and the processes under it when it was interrupted: [pid, command]. */
  let tree: Array<[number, string]> = [];
  const poll = setInterval(() => {
    if (!cli || tree.length > 0 || !ready(api)) return;
    tree = [cli.pid!, ...descendants(cli.pid!)].map((p) => [p, ps(p, "args")]);
    act(cli, tree);
  }, 20);
  const run = await stack.up(["--parallel", String(parallel)], { onOutput: (_text, child) => void (cli ??= child) });
  clearInterval(poll);
  expect(tree.length, `the run was interrupted:\n${run.output}`).toBeGreaterThan(0);
  expect(run.code).not.toBe(0);
  // The server stores each user it received when its answer is due, client or not.
  for (let i = 0; i < 100 && api.users.length < api.requests.length; i++) await new Promise((r) => setTimeout(r, 100));
  // Those still running once the run ended, then ended by pid.
  const lingering = tree
    .filter(([p]) => !/^(Z|$)/.test(ps(p, "stat")))
    .map(([p, c]) => {
      try {
        process.kill(p, "SIGKILL");
      } catch (err) {
        // It ended between `ps` and here, as the rest did.
        if ((err as NodeJS.ErrnoException).code !== "ESRCH") throw err;
      }
      return c;
    });
  return { api, stack, run, tree, lingering };
}

const checkpoint = (stack: TestStack) => ({
  resources: (stack.checkpoint().resources ?? []).filter((r) => TYPE.test(r.type)),
  pending: stack.checkpoint().pending_operations ?? [],
});
const idsInState = (stack: TestStack) =>
  checkpoint(stack)
    .resources.map((r) => [r.urn.split("::").pop(), r.id])
    .sort();
const idsOnServer = (api: ApiServer) => api.users.map((u) => [u.Name, String(u.Id)]).sort();

describe.skipIf(onNewestCli)("an interrupted up of six named users, three at a time, each answer taking 3 s", () => {
  const COUNT = 6;
  const PARALLEL = 3;
  const interrupt = (prefix: string, act: Parameters<typeof interruptedUp>[4]) =>
    interruptedUp(
      ["TypeScript", { prefix, count: COUNT }],
      { latencyMs: 3000 },
      PARALLEL,
      (api) => api.requests.length >= PARALLEL,
      act,
    );
  /** The next up, at normal speed: which names it POSTed, and which of those the server had before. */
  async function nextUp(i: Interrupted) {
    i.api.setLatency(0);
    const existed = i.api.users.map((u) => u.Name);
    const from = i.api.requests.length;
    const run = await i.stack.up();
    const posted = i.api.requests.slice(from).map((r) => JSON.parse(r.body).UserName as string);
    const names = i.api.users.map((u) => u.Name);
    expect(new Set(names).size, `a user on the server twice: ${names.join(", ")}`).toBe(names.length);
    return { run, posted, again: posted.filter((n) => existed.includes(n)) };
  }
  /** The safe outcome: nothing POSTed again, the next up completes, every user in state under its Id. */
  async function expectSafe(i: Interrupted) {
    const next = await nextUp(i);
    expect(next.again, `the next up POSTed users the interrupted run had created:\n${next.run.output}`).toEqual([]);
    expect(next.run.code, next.run.output).toBe(0);
    expect(i.api.users).toHaveLength(COUNT);
    expect(checkpoint(i.stack).pending).toEqual([]);
    expect(idsInState(i.stack)).toEqual(idsOnServer(i.api));
    return next;
  }
  /** After a force-stop: a warning, the pending creates POSTed again, the service's 409s naming the force-stopped run. */
  async function expectForceStopOutcome(i: Interrupted) {
    const next = await nextUp(i);
    expect(next.run.output).toContain("pending operations from previous deployment");
    if (next.again.length === 0) return;
    expect(next.run.code).not.toBe(0);
    expect(next.run.output).toContain("[NAME_TAKEN]");
    expect(next.run.output).toContain("force-stopped");
  }

  // A terminal's Ctrl-C signals the CLI's whole process group: the language host and the program too.
  test.each<[string, (cli: ChildProcess) => void]>([
    ["one SIGINT to the CLI", (cli) => cli.kill("SIGINT")],
    ["Ctrl-C in a terminal", (cli) => process.kill(-cli.pid!, "SIGINT")],
  ])(
    "%s cancels: in-flight creates are awaited and recorded; the next up creates only the rest",
    async (label, act) => {
      const i = await interrupt(label.startsWith("one") ? "sigint" : "ctrlc", act);
      expect(i.run.output).toContain("^C received; cancelling");
      expect(i.run.output).toContain("update canceled");
      expect(i.run.output, "one Ctrl-C must cancel, not terminate").not.toContain("^C received; terminating");
      // Every user the server made is in state under its Id; nothing else is, and nothing is pending.
      expect(checkpoint(i.stack).pending).toEqual([]);
      expect(i.api.users.length).toBeGreaterThanOrEqual(PARALLEL);
      expect(i.api.users.length).toBeLessThan(COUNT);
      expect(idsInState(i.stack)).toEqual(idsOnServer(i.api));
      const made = i.api.users.length;
      expect((await expectSafe(i)).posted).toHaveLength(COUNT - made);
      expect(i.lingering).toEqual([]);
    },
  );

  test("a second SIGINT terminates the CLI: the in-flight creates are left pending; the next up warns, and the repeats are refused as NAME_TAKEN", async () => {
    const i = await interrupt("twice", (cli) => {
      cli.kill("SIGINT");
      setTimeout(() => cli.kill("SIGINT"), 300);
    });
    expect(i.run.output).toContain("^C received; terminating");
    const after = checkpoint(i.stack);
    expect(after.pending.map((p) => p.type)).toEqual(Array(after.pending.length).fill("creating"));
    expect(after.pending.map((p) => p.resource.urn.split("::").pop()).sort()).toEqual(
      i.api.users.map((u) => u.Name).sort(),
    );
    expect(after.resources).toHaveLength(0);
    await expectForceStopOutcome(i);
  });

  test("SIGKILL of the program's process: the CLI finishes the started creates and records them", async () => {
    const i = await interrupt("killed", (_cli, tree) =>
      process.kill(tree.find(([, c]) => c.includes("cmd/run/index.js"))![0], "SIGKILL"),
    );
    expect(checkpoint(i.stack).pending).toEqual([]);
    expect(idsInState(i.stack)).toEqual(idsOnServer(i.api));
    await expectSafe(i);
  });
  // SIGKILL of the CLI (locked, then after `pulumi cancel` a force-stop): the next test, which kills its whole group.
});

// From YAML (and Go, Python) the package's plugin stands where the dynamic-provider plugin does, a generated name's suffix in state.
// Each path: where `npx` finds the bin (YAML: plugins/, docs/yaml.md), and its processes that outlive the CLI.
const paths: Array<[Lang, string[], RegExp[]]> = [
  ["TypeScript", [], [/pulumi-language-nodejs|language-host\/main\.js/, /cmd\/dynamic-provider/]],
  ["YAML", ["--prefix", "plugins"], [/pulumi-language-yaml/, /pulumi-resource-storage-user/]],
];
test.each(paths)(
  "SIGKILL of the CLI's process group mid-up of auto-named users from %s: pending names exactly the users the service holds and the stack does not",
  forceStopped,
);
async function forceStopped(lang: Lang, prefix: string[], lingering: RegExp[]) {
  // The kill follows the server's count, not time: the first FAST creates are answered at once,
  // every later one is stored, then held. Once PARALLEL are held, each create the engine has begun
  // and not finished has reached the server and been stored there.
  const [COUNT, PARALLEL, FAST] = [8, 4, 2];
  const held = { createDelayMs: (ordinal: number) => (ordinal <= FAST ? 0 : 60_000) };
  const i = await interruptedUp(
    [lang, { prefix: "auto", count: COUNT, auto: true }],
    held,
    PARALLEL,
    (api) => api.createsInFlight >= PARALLEL,
    (cli) => process.kill(-cli.pid!, "SIGKILL"),
  );
  const { api, stack } = i;
  // The language host and the plugin, each in a process group of its own, outlive the CLI's.
  for (const p of lingering) expect(i.lingering.join("\n")).toMatch(p);
  const onService = api.users.map((u) => u.Name);
  expect(api.createsInFlight, "the held creates were never answered").toBe(PARALLEL);
  expect(onService).toHaveLength(FAST + PARALLEL);
  // The installed package, as the recovery's `npx pulumi-storage-user pending` runs it.
  const load = createRequire(path.join(installConsumer(), "node_modules", "x.js"));
  const { pendingStorageUsers, formatPendingStorageUser } = load("pulumi-storage-user/automation");
  const env = { ...process.env, PATH: userPath(), npm_config_loglevel: "error", npm_config_update_notifier: "false" };
  const bin = ["--no-install", "pulumi-storage-user", "pending"];
  const pending = (args: string[], input?: string) =>
    spawnSync("npx", [...prefix, ...bin, ...args], { cwd: stack.programDir, input, encoding: "utf8", env });
  const rows = (out: string) => out.split("\n").filter(Boolean);
  const column = (out: string, i: number) => rows(out).map((l) => l.split("\t")[i]);
  const sorted = (names: string[]) => [...names].sort().join(" ");
  const userNames = (resources?: Array<Record<string, any>>) =>
    (resources ?? []).filter((r) => TYPE.test(r.type)).map((r) => r.outputs.userName as string);
  const pendingOf = async () => sorted(pendingStorageUsers(await stack.exportState()).map((p: any) => p.userName));

  // Step 1 of the recovery: the export, piped to the installed bin.
  const exportText = (await stack.must(["stack", "export"])).stdout;
  const exported = JSON.parse(exportText);
  const inStack = userNames(exported.deployment.resources);
  const listed = pending([], exportText);
  const pendingNames = sorted(column(listed.stdout, 0));
  const seen = `service: ${onService.join(" ")}; stack: ${inStack.join(" ")}; lingering: ${i.lingering.join(" | ")}\n${listed.stdout}${listed.stderr}`;
  expect(listed.status, seen).toBe(1);
  expect(rows(listed.stdout), seen).toEqual(pendingStorageUsers(exported).map(formatPendingStorageUser));
  const [ns, project] = lang === "YAML" ? ["storage-user", "yaml-users"] : ["storage", "users"];
  const row = new RegExp(
    String.raw`^auto-\d-[0-9a-f]+\tdefault connection \(${ns}:baseUrl\)\turn:pulumi:.*::${project}::${userType(lang)}::auto-\d\tunaccounted$`,
  );
  for (const l of rows(listed.stdout)) expect(l).toMatch(row);
  // pending == service − stack, as sets. ⊇: every user the service holds that the stack does not is
  // named. ⊆: at the kill all PARALLEL workers waited on held creates, so each begun create had
  // reached the server, and a recorded create has no pending operation. The FAST creates, answered,
  // are in exactly one of the two, whether the engine recorded them before the kill or not.
  const serviceMinusStack = onService.filter((n) => !inStack.includes(n));
  expect(pendingNames, seen).toBe(sorted(serviceMinusStack));
  expect(serviceMinusStack.length).toBeGreaterThanOrEqual(PARALLEL);
  // No secret in what it printed: the token and every credential the service handed out.
  const secrets = api.users.flatMap((u) => [u.Password, u.S3Connection.SecretKey, u.FtpConnection.Password]);
  for (const s of [token, ...secrets, ...api.users.map((u) => u.SwiftApiConnection.Password)])
    expect(listed.stdout + listed.stderr).not.toContain(s);

  // Step 2: the file backend keeps the killed run's lock; `pulumi cancel` removes it.
  const locked = await stack.up();
  expect(locked.output).toMatch(/locked|currently being updated|conflict/i);
  expect(api.createAttempts, "a refused up sends nothing").toBe(FAST + PARALLEL);
  await stack.must(["cancel", "--yes"]);

  // Step 3: the recovery up drops the pending creates and creates those resources again under new
  // generated names; its warning names URNs only, never the users the killed run left behind.
  api.setCreateDelay(0);
  const recovery = ok(await stack.up());
  expect(recovery.output).toContain("pending operations from previous deployment");
  for (const n of pendingNames.split(" ")) expect(recovery.output).not.toContain(n);
  const after = userNames((await stack.exportState()).deployment.resources);
  expect(after).toHaveLength(COUNT);
  const all = api.users.map((u) => u.Name);
  expect(new Set(all).size, `a name created twice: ${all.join(" ")}`).toBe(all.length);
  expect(sorted(all.filter((n) => !after.includes(n)))).toBe(pendingNames);

  // A later up sends nothing. The CLI keeps the dropped creates in pending_operations (both CLIs,
  // warning on every up until a refresh clears them): `pending` still names them.
  const requests = api.requests.length;
  ok(await stack.up());
  expect(await pendingOf()).toBe(pendingNames);
  // `refresh --clear-pending-creates` (what the warning suggests) drops them without a word.
  const refreshed = ok(await stack.refresh(["--clear-pending-creates"]));
  for (const n of pendingNames.split(" ")) expect(refreshed.output).not.toContain(n);
  expect(await pendingOf()).toBe("");
  expect(api.requests.length).toBe(requests);

  // Then the killed run's pending creates survive in the file backend's backups and history, a
  // copy of the checkpoint per finished update, where `pending <file>` reads them.
  const filesIn = (dir: string) => {
    const root = path.join(stack.workDir, "backend", ".pulumi", dir);
    const found = fs.existsSync(root) ? fs.readdirSync(root, { recursive: true, encoding: "utf8" }) : [];
    return found.map((f) => path.join(root, f)).filter((f) => fs.statSync(f).isFile());
  };
  for (const dir of ["backups", "history"]) {
    const read = filesIn(dir).map((f) => [pending([f]), f] as const);
    const found = read.map(([r, f]) => `${r.status} ${sorted(column(r.stdout, 0))} ${f}`);
    const holding = found.filter((r) => r.startsWith(`1 ${pendingNames} `));
    expect(holding.length, `a ${dir} file holds them:\n${found.join("\n")}`).toBeGreaterThan(0);
  }
  // The docs' sweep over the stack and all of its history names each user once; with the list
  // kept at step 1 (dealt with on the service), none is unaccounted and the exit status is 0.
  const current = JSON.stringify(await stack.exportState());
  const history = filesIn("history").filter((f) => f.endsWith(".checkpoint.json"));
  const open = pending(["-", ...history], current);
  const openRun = [open.status, sorted(column(open.stdout, 0)), new Set(column(open.stdout, 3))];
  expect(openRun).toEqual([1, pendingNames, new Set(["unaccounted"])]);
  const kept = path.join(stack.workDir, "pending-kept.txt");
  fs.writeFileSync(kept, listed.stdout);
  const done = pending(["--dealt-with", kept, "-", ...history], current);
  expect([done.status, column(done.stdout, 3)]).toEqual([0, pendingNames.split(" ").map(() => "dealt with")]);
}
