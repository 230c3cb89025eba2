// A force-stopped `pulumi up` of auto-named users (SIGKILL of the CLI's whole process group, as
// a cancelled CI job or an OOM kill does), then the recovery docs/failure-modes.md "After a
// force-stop" prescribes: `pulumi stack export | npx pulumi-storage-user pending`, `pulumi
// cancel`, `pulumi up`. Since the recovery `up` creates the dropped resources again under new
// generated names, the users of the killed run are on the service and in no stack: the
// `pending` list taken before `cancel` is the only place that names them.
//
// The kill is driven by the server's own count, not by time: the first FAST creates are answered
// at once (the engine records them), every later one is stored and then held. Once PARALLEL
// creates are held, the engine's PARALLEL workers all wait on the server, so every create the
// engine has begun and not finished has reached the server and been stored there.
import { ChildProcess, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { afterEach, expect, test } from "vitest";
import { descendants } from "../../support/process-tree";
import { formatPendingStorageUser, pendingStorageUsers } from "../../../cli/pending";
import { startApiServer } from "../../../server/api-server";
import { TestStack } from "../../../scripts/stack";
import { locateCli, userPath } from "../../../scripts/toolchain";

// The CLI of this file's test project (vitest.config.mts runs it on the pinned and the newest).
const CLI_DIR = locateCli();

const token = `force-stop-${randomBytes(8).toString("hex")}`;
const TYPE = "pulumi-nodejs:dynamic/storage:StorageUser";
const COUNT = 8;
const PARALLEL = 4;
/** Creates answered at once, before the server starts holding them. */
const FAST = 2;
/** How long a held create waits: far longer than the test needs to kill the CLI. */
const HELD_MS = 60_000;

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

const userNamesOf = (resources: Array<Record<string, any>>) =>
  resources.filter((r) => r.type === TYPE).map((r) => r.inputs.userName as string);

/** Checkpoint files under the file backend's `dir` (history or backups) of this stack. */
function backendFiles(stack: TestStack, dir: "history" | "backups"): string[] {
  const root = path.join(stack.workDir, "backend", ".pulumi", dir);
  const out: string[] = [];
  const walk = (d: string) => {
    if (!fs.existsSync(d)) return;
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out.push(p);
    }
  };
  walk(root);
  return out.sort();
}

test("SIGKILL of the CLI's process group mid-up of auto-named users: pending names exactly the users the service holds and the stack does not", async () => {
  const api = await startApiServer({ token, createDelayMs: (ordinal) => (ordinal <= FAST ? 0 : HELD_MS) });
  const stack = await TestStack.create({
    programDir: "test/programs/auto-users",
    config: { "auto-users:count": String(COUNT) },
    secrets: { "storage:accessToken": token },
    env: { STORAGE_API_URL: api.url },
  });
  cleanups.push(
    () => api.close(),
    () => stack.dispose(),
  );

  // --- the force-stop
  let cli: ChildProcess | undefined;
  let tree: number[] = [];
  const poll = setInterval(() => {
    if (!cli || tree.length > 0 || api.createsInFlight < PARALLEL) return;
    tree = [cli.pid!, ...descendants(cli.pid!)];
    process.kill(-cli.pid!, "SIGKILL");
  }, 20);
  const killed = await stack.up(["--parallel", String(PARALLEL)], { onOutput: (_t, child) => void (cli ??= child) });
  clearInterval(poll);
  expect(tree.length, `the run was killed mid-create:\n${killed.output}`).toBeGreaterThan(0);
  expect(killed.code).not.toBe(0);
  // Whatever escaped the group (nothing should) is ended by pid, so nothing answers late.
  const lingering = tree
    .map(
      (p) =>
        [p, spawnSync("ps", ["-o", "stat=,pgid=,args=", "-p", String(p)], { encoding: "utf8" }).stdout.trim()] as const,
    )
    .filter(([, ps]) => ps !== "" && !ps.startsWith("Z"));
  for (const [p] of lingering) {
    try {
      process.kill(p, "SIGKILL");
    } catch (err) {
      // It ended between `ps` and here, as the rest of the group did.
      if ((err as NodeJS.ErrnoException).code !== "ESRCH") throw err;
    }
  }
  const onService = api.users.map((u) => u.Name);
  expect(api.createsInFlight, "the held creates were never answered").toBe(PARALLEL);
  expect(onService).toHaveLength(FAST + PARALLEL);

  // --- step 1 of the recovery: the export, piped to the installed bin
  const exportText = (await stack.must(["stack", "export"])).stdout;
  const exported = JSON.parse(exportText);
  const inStack = userNamesOf(exported.deployment.resources ?? []);
  const bin = spawnSync("npx", ["--no-install", "pulumi-storage-user", "pending"], {
    cwd: stack.programDir,
    input: exportText,
    encoding: "utf8",
    env: { ...process.env, PATH: userPath(), npm_config_loglevel: "error", npm_config_update_notifier: "false" },
  });
  const printed = bin.stdout.trim().split("\n").filter(Boolean);
  const pendingNames = printed.map((l) => l.split("\t")[0]);
  const seen = `killed with ${api.createsInFlight} creates held; service: ${onService.join(" ")}; stack: ${inStack.join(" ") || "-"}; outside the killed group ${tree[0]}: ${lingering.map(([p, ps]) => `${p} ${ps}`).join(" | ") || "nothing"}\npending:\n${bin.stdout}${bin.stderr}`;
  expect(bin.status, seen).toBe(1);
  expect(printed, seen).toEqual(pendingStorageUsers(exported).map(formatPendingStorageUser));
  for (const l of printed)
    expect(l).toMatch(
      /^auto-\d-[0-9a-f]+\tdefault connection \(storage:baseUrl\)\turn:pulumi:.*::auto-users::pulumi-nodejs:dynamic\/storage:StorageUser::auto-\d\tunaccounted$/,
    );
  // The precise claim: pending == service − stack, as sets. Every user the service holds that the
  // stack does not must be named (⊇: the completeness the issue is about). And nothing else is
  // (⊆): a pending create is one the engine began and did not finish; at the kill all PARALLEL
  // workers were waiting on held creates, so each begun create had reached the server (which
  // stores a user before holding the answer), and a recorded create has no pending operation.
  // The FAST creates were answered: whether the engine recorded them before the kill varies, and
  // they are in exactly one of `stack` and `pending` either way.
  const serviceMinusStack = onService.filter((n) => !inStack.includes(n));
  expect([...pendingNames].sort(), seen).toEqual([...serviceMinusStack].sort());
  expect(serviceMinusStack.length).toBeGreaterThanOrEqual(PARALLEL);
  // No secret in what was printed: the token and every credential the service handed out.
  const said = bin.stdout + bin.stderr;
  expect(said).not.toContain(token);
  for (const u of api.users)
    for (const s of [u.Password, u.S3Connection.SecretKey, u.SwiftApiConnection.Password, u.FtpConnection.Password])
      expect(said).not.toContain(s);

  // --- step 2: the file backend keeps the killed run's lock; `pulumi cancel` removes it
  const locked = await stack.up();
  expect(locked.code, locked.output).not.toBe(0);
  expect(locked.output).toMatch(/locked|currently being updated|conflict/i);
  expect(api.createAttempts, "a refused up sends nothing").toBe(FAST + PARALLEL);
  await stack.must(["cancel", "--yes"]);

  // --- step 3: the recovery up. The engine drops the pending creates and creates those
  // resources again under new generated names: the killed run's users stay on the service.
  api.setCreateDelay(0);
  const recovery = await stack.up();
  expect(recovery.code, recovery.output).toBe(0);
  expect(recovery.output).toContain("pending operations from previous deployment");
  // The engine's warning names URNs only, never the users it leaves behind.
  for (const n of pendingNames) expect(recovery.output).not.toContain(n);
  const after = userNamesOf((await stack.exportState()).deployment.resources ?? []);
  expect(after).toHaveLength(COUNT);
  const all = api.users.map((u) => u.Name);
  expect(new Set(all).size, `a name created twice: ${all.join(" ")}`).toBe(all.length);
  const orphans = all.filter((n) => !after.includes(n));
  // What the service holds and the stack does not is exactly what `pending` printed before.
  expect(orphans.sort()).toEqual([...pendingNames].sort());

  // --- a later up has nothing to do and sends nothing
  const before = api.requests.length;
  const quiet = await stack.up();
  expect(quiet.code, quiet.output).toBe(0);
  expect(api.requests.length - before).toBe(0);
  // The CLI keeps the dropped creates in the state's pending_operations after the recovery up
  // (it warns on every up until a refresh clears them), v3.250.0 and v3.274.1 alike: `pending`
  // still names them.
  const settled = await stack.exportState();
  expect(
    pendingStorageUsers(settled)
      .map((p) => p.userName)
      .sort(),
  ).toEqual([...pendingNames].sort());
  // `refresh --clear-pending-creates` (what the warning suggests) drops them without a word.
  const refreshed = await stack.refresh(["--clear-pending-creates"]);
  expect(refreshed.code, refreshed.output).toBe(0);
  expect(api.requests.length - before).toBe(0);
  for (const n of pendingNames) expect(refreshed.output).not.toContain(n);
  expect(pendingStorageUsers(await stack.exportState())).toEqual([]);

  // --- once a refresh cleared them: the killed run's pending creates survive in the file
  // backend's backups and history, a copy of the checkpoint per finished update, where
  // `pending <file>` reads them (docs/failure-modes.md).
  const fromFiles = (dir: "history" | "backups") =>
    backendFiles(stack, dir).map((f) => {
      const r = spawnSync("npx", ["--no-install", "pulumi-storage-user", "pending", f], {
        cwd: stack.programDir,
        encoding: "utf8",
        env: { ...process.env, PATH: userPath(), npm_config_loglevel: "error", npm_config_update_notifier: "false" },
      });
      return {
        file: path.relative(path.join(stack.workDir, "backend"), f),
        status: r.status,
        names: r.stdout
          .trim()
          .split("\n")
          .filter(Boolean)
          .map((l) => l.split("\t")[0]),
      };
    });
  const backups = fromFiles("backups");
  const history = fromFiles("history");
  const read = `CLI ${CLI_DIR}, pending ${pendingNames.join(" ")}\nbackups:\n${backups.map((b) => `${b.file} ${b.status} ${b.names.join(" ")}`).join("\n")}\nhistory:\n${history.map((b) => `${b.file} ${b.status} ${b.names.join(" ")}`).join("\n")}`;
  const holds = (files: typeof backups) =>
    files.some((b) => b.status === 1 && [...b.names].sort().join() === [...pendingNames].sort().join());
  expect(holds(backups), `a backup holds the killed run's pending creates:\n${read}`).toBe(true);
  expect(holds(history), `a history checkpoint holds the killed run's pending creates:\n${read}`).toBe(true);

  // --- the docs' command over the stack and all of its history: each user once, however many
  // checkpoints hold it; with the list kept at step 1 (dealt with on the service), none is
  // unaccounted and the exit status is 0.
  const historyFiles = backendFiles(stack, "history").filter((f) => f.endsWith(".checkpoint.json"));
  const current = await stack.exportState();
  const kept = path.join(stack.workDir, "pending-kept.txt");
  fs.writeFileSync(kept, bin.stdout);
  const sweep = (extra: string[]) =>
    spawnSync("npx", ["--no-install", "pulumi-storage-user", "pending", ...extra, "-", ...historyFiles], {
      cwd: stack.programDir,
      input: JSON.stringify(current),
      encoding: "utf8",
      env: { ...process.env, PATH: userPath(), npm_config_loglevel: "error", npm_config_update_notifier: "false" },
    });
  const open = sweep([]);
  const openRows = open.stdout
    .trim()
    .split("\n")
    .map((l) => l.split("\t"));
  expect(open.status, open.stderr).toBe(1);
  expect(openRows.map((r) => r[0]).sort()).toEqual([...pendingNames].sort());
  expect(new Set(openRows.map((r) => r[3]))).toEqual(new Set(["unaccounted"]));
  const done = sweep(["--dealt-with", kept]);
  expect(done.status, done.stderr).toBe(0);
  expect(
    done.stdout
      .trim()
      .split("\n")
      .map((l) => l.split("\t")[3]),
  ).toEqual(pendingNames.map(() => "dealt with"));
});
