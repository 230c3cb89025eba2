/**
 * What a user's state holds on each path, and where an `up`'s CPU goes (issue 55): N StorageUsers
 * from TypeScript (bench/programs/storage-users) and from YAML through the release's plugin binary,
 * installed as the bench installs it (./workspace.ts installedPlugin), with the bench's floors. `node dist/bench/plugin-state.js [N] [rounds] [paths]` (default 100, 1,
 * ts,tsFloor,yaml,yamlFloor; the CLI gets this process's environment, e.g. PULUMI_DISABLE_SECRET_CACHE):
 *
 * 1. State bytes per user, by part: each top-level field of a resource, each input and each output,
 *    a part's bytes being what the checkpoint (the file backend's state file, secrets encrypted)
 *    loses without it, serialized as the file is (compact JSON); a secret's plaintext beside it.
 * 2. CPU seconds of `up` (N creates) per process (engine, language host, program, plugin), read
 *    from /proc while it runs, with and without PULUMI_SKIP_CHECKPOINTS.
 * Writes bench/work/plugin-state.json; prints tables.
 */
import { randomBytes } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { startApiServer } from "../server/api-server";
import { repoRoot, TestStack } from "../scripts/stack";
import { yamlPath, yamlUsersText } from "../scripts/yaml-program";
import { declarePlugin, installedPlugin, workspace } from "./workspace";

const N = Number(process.argv[2] ?? 100);
const ROUNDS = Number(process.argv[3] ?? 1);
const LATENCY_MS = 50;
type Json = Record<string, unknown>;
type Path = "ts" | "tsFloor" | "yaml" | "yamlFloor";
const PATHS = (process.argv[4] ?? "ts,tsFloor,yaml,yamlFloor").split(",") as Path[];
const r2 = (x: number) => Math.round(x * 100) / 100;

/** utime+stime (s) of every process under `root`, by kind, sampled until `done` resolves. */
async function cpuByProcess(root: number, done: Promise<unknown>): Promise<Record<string, number>> {
  const last = new Map<number, [string, number]>();
  const tick = Number(process.env.CLK_TCK ?? 100);
  const kindOf = (cmd: string) =>
    /pulumi-language-yaml/.test(cmd)
      ? "YAML host"
      : /language-host\/main|pulumi-language-nodejs/.test(cmd)
        ? "Node.js host"
        : /cmd\/run/.test(cmd)
          ? "program"
          : /dynamic-provider|pulumi-resource-(storage-user|psu-noop)/.test(cmd)
            ? "plugin"
            : /(^|\/)pulumi\0/.test(cmd)
              ? "engine (pulumi)"
              : `other: ${cmd.split("\0").slice(0, 2).join(" ").slice(-60)}`;
  const sample = () => {
    const stats = new Map<number, { ppid: number; cpu: number }>();
    for (const d of fs.readdirSync("/proc")) {
      if (!/^\d+$/.test(d)) continue;
      try {
        const stat = fs.readFileSync(`/proc/${d}/stat`, "utf8");
        const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
        stats.set(Number(d), { ppid: Number(f[1]), cpu: (Number(f[11]) + Number(f[12])) / tick });
      } catch {
        // Gone meanwhile.
      }
    }
    const under = new Set([root]);
    for (let grew = true; grew;) {
      grew = false;
      for (const [pid, s] of stats) {
        if (under.has(pid) || !under.has(s.ppid)) continue;
        under.add(pid);
        grew = true;
      }
    }
    for (const pid of under) {
      const cmd = last.get(pid)?.[0] ?? fs.readFileSync(`/proc/${pid}/cmdline`, "utf8");
      last.set(pid, [cmd, stats.get(pid)?.cpu ?? 0]);
    }
  };
  let running = true;
  void done.then(() => (running = false));
  while (running) {
    try {
      sample();
    } catch {
      // A process ended between the listing and the read.
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  const out: Record<string, number> = {};
  for (const [cmd, cpu] of last.values()) out[kindOf(cmd)] = r2((out[kindOf(cmd)] ?? 0) + cpu);
  return out;
}

/** Bytes of each part of the users' resources in the checkpoint: what the file loses without it, per user. */
function breakdown(checkpoint: Json, plain: Json[], isUser: (r: Json) => boolean) {
  const size = (c: Json) => Buffer.byteLength(JSON.stringify({ checkpoint: { latest: c } }));
  const latest = checkpoint;
  const resources = latest.resources as Json[];
  const users = resources.filter(isUser);
  const total = size(latest);
  const without = (edit: (r: Json) => Json) =>
    (total - size({ ...latest, resources: resources.map((r) => (isUser(r) ? edit(r) : r)) })) / users.length;
  const parts: Record<string, number> = {
    "whole resource": (total - size({ ...latest, resources: resources.filter((r) => !isUser(r)) })) / users.length,
  };
  for (const k of Object.keys(users[0]).filter((k) => k !== "inputs" && k !== "outputs"))
    parts[`field ${k}`] = without(({ [k]: _, ...rest }) => rest);
  for (const side of ["inputs", "outputs"] as const)
    for (const k of Object.keys(users[0][side] as Json))
      parts[`${side}.${k}`] = without((r) => {
        const { [k]: _, ...rest } = r[side] as Json;
        return { ...r, [side]: rest };
      });
  const secretPlain: Record<string, number> = {};
  const plainUser = plain.find((r) => r.urn === users[0].urn)!;
  for (const [k, v] of Object.entries(users[0].outputs as Json))
    if (typeof v === "object" && v && "ciphertext" in v)
      secretPlain[k] = Buffer.byteLength(JSON.stringify((plainUser.outputs as Json)[k]));
  return {
    users: users.length,
    parts: Object.fromEntries(Object.entries(parts).map(([k, v]) => [k, r2(v)])),
    secretPlain,
  };
}

async function main() {
  const ws = workspace("plugin-state");
  const plugin = PATHS.includes("yaml") ? await installedPlugin(ws.dir) : undefined;
  const token = randomBytes(16).toString("hex");
  const api = await startApiServer({ token, latencyMs: LATENCY_MS });
  const results: Json[] = [];
  const stackOf = async (p: Path, skip: boolean) => {
    const prefix = `${p}-${skip ? "s" : "c"}-${randomBytes(3).toString("hex")}`;
    const env: Record<string, string> = skip ? { PULUMI_SKIP_CHECKPOINTS: "true" } : {};
    if (p === "yaml" || p === "yamlFloor") {
      const dir = ws.program(prefix);
      const floor = p === "yamlFloor";
      fs.mkdirSync(dir, { recursive: true });
      const text = yamlUsersText({
        ...{ count: N, prefix, resource: "u", project: "psu-bench" },
        ...(floor
          ? { noop: ["psu-noop", "psu-noop:index:NoopUser"] as [string, string], plugin: "../noop-plugin" }
          : {}),
        ...(floor ? {} : { plugin: false as const }),
      });
      fs.writeFileSync(path.join(dir, "Pulumi.yaml"), text);
      if (!floor) declarePlugin(dir, plugin!.version);
      return TestStack.create({
        programDir: dir,
        config: { "storage-user:baseUrl": api.url },
        secrets: { "storage-user:accessToken": token },
        env: {
          ...env,
          PATH: yamlPath(),
          PSU_NOOP_LATENCY_MS: String(LATENCY_MS),
          ...(plugin ? { PULUMI_HOME: plugin.home } : {}),
        },
      });
    }
    return TestStack.create({
      programDir: ws.program(p === "ts" ? "storage-users" : "noop-users"),
      config: {
        "psu-bench:count": String(N),
        "psu-bench:prefix": prefix,
        "psu-bench:latencyMs": String(LATENCY_MS),
        "storage:baseUrl": api.url,
      },
      secrets: { "storage:accessToken": token },
      env,
    });
  };
  try {
    for (let round = 0; round < ROUNDS; round++) {
      for (const skip of [false, true]) {
        for (const p of round % 2 ? [...PATHS].reverse() : PATHS) {
          const stack = await stackOf(p, skip);
          try {
            const load = os.loadavg()[0];
            const start = performance.now();
            let child: { pid?: number } | undefined;
            let resolveChild: () => void = () => {};
            const started = new Promise<void>((r) => (resolveChild = r));
            const upDone = stack.up(["--parallel", "10"], {
              onOutput: (_t, c) => {
                child ??= c;
                resolveChild();
              },
            });
            await Promise.race([started, upDone]);
            const cpu = child?.pid ? await cpuByProcess(child.pid, upDone) : {};
            const up = await upDone;
            const seconds = r2((performance.now() - start) / 1000);
            if (up.code !== 0) throw new Error(`${p}: up failed\n${up.output.slice(-3000)}`);
            const row: Json = { round, path: p, skipCheckpoints: skip, seconds, cpu, load: r2(load) };
            if (!skip) {
              const file = JSON.parse(stack.stateFileText()) as { checkpoint: { latest: Json } };
              const plain = (await stack.exportState(true)).deployment.resources as Json[];
              const isUser = (r: Json) => /(StorageUser|NoopUser)$/.test(String(r.type));
              row.stateFileBytes = Buffer.byteLength(stack.stateFileText());
              row.reserializedBytes = Buffer.byteLength(JSON.stringify(file));
              row.exportBytes = Buffer.byteLength((await stack.must(["stack", "export"])).stdout);
              row.state = breakdown(file.checkpoint.latest, plain, isUser);
            }
            results.push(row);
            console.log(JSON.stringify(row));
          } finally {
            await stack.dispose();
          }
        }
      }
    }
  } finally {
    await api.close();
  }
  const out = path.join(repoRoot, "bench", "work", "plugin-state.json");
  fs.writeFileSync(out, JSON.stringify({ n: N, rounds: ROUNDS, results }, null, 1) + "\n");
  console.log(`written ${out}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
