// An interrupted `pulumi up` must leave no user on the server that the next `pulumi up` would
// create again. Six StorageUsers, --parallel 3, a server that takes 3 s per answer: the
// interruption lands while three creates are in flight (already received by the server, which
// stores each user when its answer is due, whatever happened to the client).
//
// What the CLI does (v3.250.0, observed here):
// - one SIGINT: "cancelling": no new create starts, the in-flight ones are awaited and recorded,
//   exit non-zero with "update canceled"; the next up creates only the users never started;
// - a second SIGINT: "terminating": the CLI exits at once, the in-flight creates stay in the
//   checkpoint as pending CREATE operations, and the next up warns about them ("Attempting to
//   deploy or update resources with N pending operations") and POSTs them again. A provider is
//   told nothing about pending operations, so this is the one case it cannot guard: the service's
//   own unique names turn the repeats into 409s, which the provider reports as [NAME_TAKEN]
//   naming the force-stopped run (docs/failure-modes.md);
// - SIGKILL of the program's node process (under the language host): the CLI carries on
//   without its program, the started creates finish and are recorded;
// - SIGKILL of the CLI: the stack stays locked, the next up refuses to run; after `pulumi
//   cancel` it behaves as after a second SIGINT.
// A terminal's Ctrl-C signals the whole foreground process group. The harness starts `pulumi` as
// the leader of a process group of its own, as a shell starts a foreground job, so signalling
// the group is what Ctrl-C does.
import { ChildProcess, execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { afterEach, describe, expect, test } from "vitest";
import { descendants } from "../support/process-tree";
import { ApiServer, startApiServer } from "../../server/api-server";
import { RunResult, TestStack } from "../../scripts/stack";

const token = `cancel-token-${randomBytes(6).toString("hex")}`;
const TYPE = "pulumi-nodejs:dynamic/storage:StorageUser";
const COUNT = 6;
const PARALLEL = 3;
const LATENCY_MS = 3000;

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return !execFileSync("ps", ["-o", "stat=", "-p", String(pid)], { encoding: "utf8" }).includes("Z");
  } catch {
    return false;
  }
};

const cmdline = (pid: number) => {
  try {
    return execFileSync("ps", ["-o", "args=", "-p", String(pid)], { encoding: "utf8" }).trim();
  } catch {
    return "";
  }
};

interface Interrupted {
  api: ApiServer;
  stack: TestStack;
  run: RunResult;
  /** The CLI and the processes under it when it was interrupted: [pid, command]. */
  tree: Array<[number, string]>;
  /** Those still running once the run ended and the server settled (then ended by pid). */
  lingering: string[];
}

/**
 * `pulumi up` of COUNT users; once PARALLEL creates have reached the server, `act` interrupts.
 * Then waits for the server to store every user it received, and ends any process of this run
 * still alive (by pid).
 */
async function interruptedUp(
  prefix: string,
  act: (cli: ChildProcess, tree: Array<[number, string]>, output: () => string) => void,
): Promise<Interrupted> {
  const api = await startApiServer({ token, latencyMs: LATENCY_MS });
  const stack = await TestStack.create({
    programDir: "test/programs/users",
    config: { "users:prefix": prefix, "users:count": String(COUNT) },
    secrets: { "storage:accessToken": token },
    env: { STORAGE_API_URL: api.url },
  });
  cleanups.push(async () => {
    await stack.dispose();
    await api.close();
  });
  let cli: ChildProcess | undefined;
  let tree: Array<[number, string]> = [];
  const poll = setInterval(() => {
    if (!cli || tree.length > 0 || api.requests.length < PARALLEL) return;
    tree = [cli.pid!, ...descendants(cli.pid!)].map((p) => [p, cmdline(p)]);
    act(cli, tree, () => soFar);
  }, 50);
  let soFar = "";
  const run = await stack.up(["--parallel", String(PARALLEL)], {
    onOutput: (text, child) => {
      cli ??= child;
      soFar = text;
    },
  });
  clearInterval(poll);
  expect(tree.length, `the run was interrupted:\n${run.output}`).toBeGreaterThan(0);
  // The server stores each user it received when its answer is due, client or not.
  for (let i = 0; i < 100 && api.users.length < api.requests.length; i++) await new Promise((r) => setTimeout(r, 100));
  const lingering: string[] = [];
  for (const [pid, c] of tree) {
    if (alive(pid)) {
      lingering.push(c);
      process.kill(pid, "SIGKILL");
    }
  }
  return { api, stack, run, tree, lingering };
}

function checkpoint(stack: TestStack): { resources: Array<Record<string, any>>; pending: Array<Record<string, any>> } {
  const latest = stack.checkpoint();
  return {
    resources: (latest.resources ?? []).filter((r: any) => r.type === TYPE),
    pending: latest.pending_operations ?? [],
  };
}

/** The next up, at normal speed: which names it POSTed. */
async function nextUp(i: Interrupted): Promise<{ run: RunResult; posted: string[]; existedBefore: string[] }> {
  i.api.setLatency(0);
  const existedBefore = i.api.users.map((u) => u.Name);
  const from = i.api.requests.length;
  const run = await i.stack.up();
  const posted = i.api.requests.slice(from).map((r) => JSON.parse(r.body).UserName as string);
  return { run, posted, existedBefore };
}

/**
 * After a force-stop the engine warns about the pending creates and POSTs them again; the
 * service refuses the names it already has, and the error names the force-stopped run.
 */
function expectForceStopOutcome(i: Interrupted, next: { run: RunResult; posted: string[]; existedBefore: string[] }) {
  const names = i.api.users.map((u) => u.Name);
  expect(new Set(names).size, `duplicate users on the server: ${names.join(", ")}`).toBe(names.length);
  expect(next.run.output).toContain("pending operations from previous deployment");
  if (next.posted.some((n) => next.existedBefore.includes(n))) {
    expect(next.run.code).not.toBe(0);
    expect(next.run.output).toContain("[NAME_TAKEN]");
    expect(next.run.output).toContain("force-stopped");
  }
}

/**
 * The safe outcome: no user on the server twice, and no name POSTed again that the interrupted
 * run had already created. `complete`: besides, the next up succeeds and every user is in state
 * under its Id, all COUNT of them.
 */
function expectSafe(
  i: Interrupted,
  next: { run: RunResult; posted: string[]; existedBefore: string[] },
  complete = true,
) {
  const names = i.api.users.map((u) => u.Name);
  expect(new Set(names).size, `duplicate users on the server: ${names.join(", ")}`).toBe(names.length);
  const again = next.posted.filter((n) => next.existedBefore.includes(n));
  expect(again, `the next up POSTed users the interrupted run had created:\n${next.run.output}`).toEqual([]);
  if (!complete) return;
  expect(next.run.code, next.run.output).toBe(0);
  const prefix = names[0].replace(/-\d+$/, "");
  expect([...names].sort()).toEqual(Array.from({ length: COUNT }, (_, k) => `${prefix}-${k}`).sort());
  const { resources, pending } = checkpoint(i.stack);
  expect(pending).toEqual([]);
  expect(resources.map((r) => [r.urn.split("::").pop(), r.id]).sort()).toEqual(
    i.api.users.map((u) => [u.Name, String(u.Id)]).sort(),
  );
}

describe("an interrupted pulumi up", () => {
  test("one SIGINT: in-flight creates are awaited and recorded; the next up creates only the rest", async () => {
    const i = await interruptedUp("sigint", (cli) => cli.kill("SIGINT"));
    expect(i.run.code).not.toBe(0);
    expect(i.run.output).toContain("^C received; cancelling");
    expect(i.run.output).toContain("update canceled");
    const after = checkpoint(i.stack);
    expect(after.pending).toEqual([]);
    // Every user the server made is in state under its Id; nothing else is.
    expect(i.api.users.length).toBeGreaterThanOrEqual(PARALLEL);
    expect(i.api.users.length).toBeLessThan(COUNT);
    expect(after.resources.map((r) => [r.urn.split("::").pop(), r.id]).sort()).toEqual(
      i.api.users.map((u) => [u.Name, String(u.Id)]).sort(),
    );
    const before = i.api.users.length;
    const next = await nextUp(i);
    expect(next.posted).toHaveLength(COUNT - before);
    expectSafe(i, next);
    expect(i.lingering).toEqual([]);
  });

  test("Ctrl-C in a terminal (SIGINT to the CLI's whole process group): the same as one SIGINT", async () => {
    const i = await interruptedUp("ctrlc", (cli) => process.kill(-cli.pid!, "SIGINT"));
    expect(i.run.code).not.toBe(0);
    expect(i.run.output, "one Ctrl-C must cancel, not terminate").not.toContain("^C received; terminating");
    expect(i.run.output).toContain("^C received; cancelling");
    expect(checkpoint(i.stack).pending, "one Ctrl-C must leave no pending create").toEqual([]);
    expectSafe(i, await nextUp(i));
  });

  test("a second SIGINT terminates the CLI: the next up warns, and the repeats are refused as NAME_TAKEN", async () => {
    const i = await interruptedUp("twice", (cli) => {
      cli.kill("SIGINT");
      setTimeout(() => cli.kill("SIGINT"), 300);
    });
    expect(i.run.code).not.toBe(0);
    expect(i.run.output).toContain("^C received; terminating");
    const after = checkpoint(i.stack);
    // What the CLI leaves: the in-flight creates as pending CREATE operations, not resources.
    expect(after.pending.map((p) => p.type)).toEqual(Array(after.pending.length).fill("creating"));
    expect(after.pending.map((p) => p.resource.urn.split("::").pop()).sort()).toEqual(
      i.api.users.map((u) => u.Name).sort(),
    );
    expect(after.resources).toHaveLength(0);
    expectForceStopOutcome(i, await nextUp(i));
  });

  test("SIGKILL of the program's process: the CLI finishes the started creates and records them", async () => {
    const i = await interruptedUp("killed", (_cli, tree) => {
      const [program] = tree.find(([, c]) => c.includes("cmd/run/index.js"))!;
      process.kill(program, "SIGKILL");
    });
    expect(i.run.code).not.toBe(0);
    const after = checkpoint(i.stack);
    expect(after.pending).toEqual([]);
    expect(after.resources.map((r) => [r.urn.split("::").pop(), r.id]).sort()).toEqual(
      i.api.users.map((u) => [u.Name, String(u.Id)]).sort(),
    );
    expectSafe(i, await nextUp(i));
  });

  test("SIGKILL of the CLI: the stack stays locked, the next up sends nothing; after `pulumi cancel` it is a force-stop", async () => {
    const i = await interruptedUp("clikill", (cli) => cli.kill("SIGKILL"));
    expect(i.run.code).not.toBe(0);
    const made = i.api.users.length;
    // What docs/failure-modes.md says: the language host and the plugin outlive the CLI killed alone.
    const left = `left running afterwards: ${i.lingering.join(" | ") || "none"}`;
    expect(
      i.lingering.some((c) => /pulumi-language-nodejs|language-host\/main\.js/.test(c)),
      left,
    ).toBe(true);
    expect(
      i.lingering.some((c) => c.includes("cmd/dynamic-provider")),
      left,
    ).toBe(true);
    const locked = await nextUp(i);
    expect(locked.run.code).not.toBe(0);
    expect(locked.run.output).toContain("the stack is currently locked");
    expect(locked.posted).toEqual([]);
    expect(i.api.users).toHaveLength(made);

    const cancel = await i.stack.run(["cancel", "--yes"]);
    expect(cancel.code, cancel.output).toBe(0);
    expectForceStopOutcome(i, await nextUp(i));
  });
});
