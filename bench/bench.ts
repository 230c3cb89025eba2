/**
 * `npm run bench`: preview and `up` at scale, one interleaved run on the path users take (the real
 * `pulumi` CLI, the Node.js language host, the dynamic-provider plugin; scripts/stack.ts), against
 * the local storage API answering after a fixed latency.
 *
 * Per round and size N, one fresh stack per variant; each operation runs for every variant back to
 * back (a pair, or a triple at 200), the order alternating between rounds, with the load average
 * read before and after:
 *   up (N creates), no-change preview, no-change up; then the raw state file's size.
 * Variants: StorageUser (programs/storage-users), the engine floor (programs/noop-users: a no-op
 * dynamic resource, same inputs, waits the same latency), and at 200 raw undici
 * (programs/raw-undici: the bare POST in a dynamic provider, same outputs and secret); the plugin
 * path: a YAML program through the release's plugin binary, installed as its users install it
 * (./workspace.ts installedPlugin), and the YAML floor (programs/noop-plugin), with the plugin's
 * start-up per start and per command (README.md).
 * With BENCH_VS=<package root>, that build (e.g. a released version) runs programs/storage-users
 * too, in the same pairs: the one way to compare two versions, since runs apart differ in load.
 * Figures are medians of the per-pair ratios. Writes bench/work/summary.json and the results
 * table in bench/README.md; raw figures go to bench/work/ (not committed).
 */
import { execFileSync, spawn } from "node:child_process";
import { once } from "node:events";
import { randomBytes } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { startApiServer } from "../server/api-server";
import { cliVersion, repoRoot, TestStack } from "../scripts/stack";
import { seaNode } from "../scripts/plugin-binary";
import { nodeBinDir, userPath } from "../scripts/toolchain";
import { yamlPath, yamlUsersText } from "../scripts/yaml-program";
import { meterCli, readCpu } from "./cpu";
import { declarePlugin, installedPlugin, workspace } from "./workspace";

/** Two sizes: the smaller one also runs raw undici; state per user is the difference between them. */
const SIZES = (process.env.BENCH_SIZES ?? "200,400").split(",").map(Number);
const [SMALL, LARGE] = SIZES;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const PARALLEL = 10;
const LATENCY_MS = 50;
/** The YAML floor's plugin (programs/noop-plugin) and resource type. */
const NOOP: [string, string] = ["psu-noop", "psu-noop:index:NoopUser"];

type Variant = "ours" | "floor" | "raw" | "vs" | "yaml" | "yamlFloor";
/** The other build BENCH_VS names, installed beside its own copy of the programs. */
const VS = process.env.BENCH_VS;
/** upNoCheckpoints: `up` (creates) on fresh stacks with the engine's per-step checkpoints off, to show what they cost. */
type Op = "up" | "preview" | "upNoChange" | "upNoCheckpoints";
const opNames: Record<Op, string> = {
  preview: "no-change `pulumi preview`",
  up: "`pulumi up` (creates)",
  upNoChange: "no-change `pulumi up`",
  upNoCheckpoints: "`pulumi up` (creates) with `PULUMI_SKIP_CHECKPOINTS=true`",
};
const programs: Record<Variant, string> = {
  ours: "storage-users",
  floor: "noop-users",
  raw: "raw-undici",
  vs: "storage-users",
  yaml: "",
  yamlFloor: "",
};
const names: Record<Variant, string> = {
  ours: "StorageUser",
  floor: "engine floor",
  raw: "raw undici",
  vs: "BENCH_VS",
  yaml: "YAML StorageUser",
  yamlFloor: "YAML engine floor",
};
const isYaml = (v: Variant) => v === "yaml" || v === "yamlFloor";
const variantsAt = (n: number): Variant[] => [
  "ours",
  "floor",
  "yaml",
  "yamlFloor",
  ...(n === SMALL ? (["raw"] as const) : []),
  ...(VS ? (["vs"] as const) : []),
];

interface Sample {
  round: number;
  n: number;
  op: Op;
  order: Variant[];
  seconds: Partial<Record<Variant, number>>;
  /** CPU seconds of all the command's processes (./cpu.ts). */
  cpu: Partial<Record<Variant, number>>;
  load: { before: number[]; after: number[] };
}
/** Milliseconds to start each YAML variant's plugin, one pair. */
type StartSample = { round: number; yaml: number; yamlFloor: number };
interface StateSample {
  round: number;
  n: number;
  bytes: Partial<Record<Variant, number>>;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const r2 = (x: number) => Math.round(x * 100) / 100;
const load = () => os.loadavg().map(r2);
const nodeVersion = (major?: string) =>
  execFileSync(path.join(nodeBinDir(major), "node"), ["--version"], { encoding: "utf8" }).trim();
const log = (msg: string) => console.log(`[bench ${new Date().toISOString().slice(11, 19)}] ${msg}`);

async function timed(stack: TestStack, op: Op, n: number): Promise<{ seconds: number; cpu: number }> {
  const args = ["--parallel", String(PARALLEL)];
  const cpuFile = path.join(stack.workDir, "cpu.txt");
  const opts = {
    env: { BENCH_CPU_FILE: cpuFile, ...(op === "upNoCheckpoints" ? { PULUMI_SKIP_CHECKPOINTS: "true" } : {}) },
  };
  const start = performance.now();
  const r = op === "preview" ? await stack.preview(args, opts) : await stack.up(args, opts);
  const seconds = (performance.now() - start) / 1000;
  if (r.code !== 0) throw new Error(`${op} of ${stack.programDir} failed:\n${r.output}`);
  // Proof the run did what is claimed: N creates, or nothing to do.
  const expect = new RegExp(op === "up" || op === "upNoCheckpoints" ? `\\+ ${n + 1} created` : `${n + 1} unchanged`);
  if (!expect.test(r.output))
    throw new Error(`${op} of ${stack.programDir}: expected ${expect}, got:\n${r.output.slice(-2000)}`);
  return { seconds, cpu: readCpu(cpuFile) };
}

/** Milliseconds from starting a plugin's executable to the port it prints: what the engine waits for at each start. */
async function pluginStart(file: string): Promise<number> {
  const start = performance.now();
  const child = spawn(file, [], { env: { ...process.env, PATH: userPath() }, stdio: ["ignore", "pipe", "inherit"] });
  const [port] = (await Promise.race([once(child.stdout, "data"), once(child, "exit")])) as unknown[];
  const ms = performance.now() - start;
  if (!/^\d+\s*$/.test(String(port))) throw new Error(`${file} printed no port (${String(port)})`);
  child.kill();
  await once(child, "exit");
  return ms;
}

/**
 * How often the engine starts the package's plugin in one `preview` and one `up` (2 creates) of a
 * YAML program: through a wrapper that logs each start, untimed.
 */
async function startsPerCommand(ws: ReturnType<typeof workspace>, real: string, url: string, token: string) {
  const dir = ws.program("starts");
  const [log, wrapper] = [path.join(dir, "starts.log"), path.join(dir, "wrap", "pulumi-resource-storage-user")];
  fs.mkdirSync(path.dirname(wrapper), { recursive: true });
  fs.writeFileSync(wrapper, `#!/bin/sh\necho start >> '${log}'\nexec '${real}' "$@"\n`, { mode: 0o755 });
  const prefix = `starts-${randomBytes(2).toString("hex")}`;
  fs.writeFileSync(path.join(dir, "Pulumi.yaml"), yamlUsersText({ count: 2, prefix, plugin: "./wrap" }));
  const stack = await TestStack.create({
    programDir: dir,
    config: { "storage-user:baseUrl": url },
    secrets: { "storage-user:accessToken": token },
    env: { PATH: yamlPath() },
  });
  const count = async (op: () => ReturnType<TestStack["up"]>) => {
    fs.writeFileSync(log, "");
    const r = await op();
    if (r.code !== 0) throw new Error(`counting plugin starts:\n${r.output}`);
    return fs.readFileSync(log, "utf8").split("\n").filter(Boolean).length;
  };
  try {
    return { preview: await count(() => stack.preview()), up: await count(() => stack.up()) };
  } finally {
    await stack.dispose();
  }
}

async function main() {
  const ws = workspace("run");
  const vsWs = VS ? workspace("vs", VS) : undefined;
  meterCli();
  const plugin = await installedPlugin(ws.dir);
  const token = randomBytes(16).toString("hex");
  const api = await startApiServer({ token, latencyMs: LATENCY_MS });
  const env = { STORAGE_API_URL: api.url, STORAGE_ACCESS_TOKEN: token };
  const started = new Date();
  const loadAtStart = load();
  const samples: Sample[] = [];
  const states: StateSample[] = [];
  const starts: StartSample[] = [];
  let pluginStarts: { preview: number; up: number } | undefined;
  const plugins = {
    yaml: plugin.binary,
    yamlFloor: ws.program("noop-plugin/pulumi-resource-psu-noop"),
  };
  try {
    for (let round = 0; round < ROUNDS; round++) {
      for (let i = 0; i < 5; i++) {
        const t = { round, yaml: 0, yamlFloor: 0 };
        for (const v of i % 2 ? (["yamlFloor", "yaml"] as const) : (["yaml", "yamlFloor"] as const))
          t[v] = r2(await pluginStart(plugins[v]));
        starts.push(t);
      }
      log(
        `round ${round + 1} plugin starts (ms): ${starts
          .filter((t) => t.round === round)
          .map((t) => `${t.yaml}/${t.yamlFloor}`)
          .join(", ")}`,
      );
      for (const n of SIZES) {
        const order = round % 2 ? [...variantsAt(n)].reverse() : variantsAt(n);
        const newStack = (v: Variant) => {
          const prefix = `${v}-${n}-r${round}-${randomBytes(2).toString("hex")}`;
          if (isYaml(v)) {
            // YAML has no loops: a program of n resources per stack, beside the package's and the floor's plugins.
            const dir = ws.program(prefix);
            const floor = v === "yamlFloor";
            const text = yamlUsersText({
              ...{ count: n, prefix, resource: "u", project: "psu-bench", noop: floor ? NOOP : undefined },
              plugin: floor ? "../noop-plugin" : false,
            });
            fs.mkdirSync(dir, { recursive: true });
            fs.writeFileSync(path.join(dir, "Pulumi.yaml"), text);
            if (!floor) declarePlugin(dir, plugin.version);
            // The same config and PULUMI_HOME (where the binary is installed) for both YAML variants.
            return TestStack.create({
              programDir: dir,
              config: { "storage-user:baseUrl": api.url },
              secrets: { "storage-user:accessToken": token },
              env: { PATH: yamlPath(), PSU_NOOP_LATENCY_MS: String(LATENCY_MS), PULUMI_HOME: plugin.home },
            });
          }
          const config: Record<string, string> = {
            "psu-bench:count": String(n),
            "psu-bench:prefix": prefix,
            "psu-bench:latencyMs": String(LATENCY_MS),
          };
          // The same stack config for every variant (the floor's too), so config decryption costs the same.
          config["storage:baseUrl"] = api.url;
          const secrets = { "storage:accessToken": token };
          return TestStack.create({
            programDir: (v === "vs" ? vsWs! : ws).program(programs[v]),
            config,
            secrets,
            env: v === "raw" ? env : {},
          });
        };
        const stacks = new Map<Variant, TestStack>();
        const fresh = new Map<Variant, TestStack>();
        for (const v of order) stacks.set(v, await newStack(v));
        for (const v of order.filter((v) => v !== "raw")) fresh.set(v, await newStack(v));
        try {
          for (const op of ["up", "preview", "upNoChange", "upNoCheckpoints"] as Op[]) {
            const on = op === "upNoCheckpoints" ? fresh : stacks;
            const sample: Sample = {
              round,
              n,
              op,
              order: [...on.keys()],
              seconds: {},
              cpu: {},
              load: { before: load(), after: [] },
            };
            for (const v of sample.order) {
              const t = await timed(on.get(v)!, op, n);
              sample.seconds[v] = r2(t.seconds);
              sample.cpu[v] = r2(t.cpu);
            }
            sample.load.after = load();
            samples.push(sample);
            log(
              `round ${round + 1} n=${n} ${op}: ${sample.order.map((v) => `${v} ${sample.seconds[v]} s (CPU ${sample.cpu[v]} s)`).join(", ")}; load ${sample.load.before[0]} -> ${sample.load.after[0]}`,
            );
          }
          states.push({
            round,
            n,
            bytes: Object.fromEntries(order.map((v) => [v, Buffer.byteLength(stacks.get(v)!.stateFileText())])),
          });
        } finally {
          for (const s of [...stacks.values(), ...fresh.values()]) await s.dispose();
        }
      }
    }
    pluginStarts = await startsPerCommand(ws, plugin.binary, api.url, token);
  } finally {
    await api.close();
  }
  report({ started, loadAtStart, loadAtEnd: load(), samples, states, starts, pluginStarts });
}

function report(run: {
  started: Date;
  loadAtStart: number[];
  loadAtEnd: number[];
  samples: Sample[];
  states: StateSample[];
  starts: StartSample[];
  /** Starts of the package's plugin in one command of a YAML program. */
  pluginStarts: { preview: number; up: number };
}) {
  const { samples, states } = run;
  const pick = (n: number, op: Op) => samples.filter((s) => s.n === n && s.op === op);
  const med = (n: number, op: Op, v: Variant) => r2(median(pick(n, op).map((s) => s.seconds[v]!)));
  const ratios = (n: number, op: Op, a: Variant, b: Variant) => pick(n, op).map((s) => s.seconds[a]! / s.seconds[b]!);
  const cpuRatio = (n: number, op: Op, a: Variant, b: Variant) =>
    `${r2(median(pick(n, op).map((s) => s.cpu[a]! / s.cpu[b]!)))}×`;
  const ratio = (n: number, op: Op, a: Variant, b: Variant) => r2(median(ratios(n, op, a, b)));
  /** The median, then every pair's ratio: the spread is the noise. */
  const shown = (n: number, op: Op, a: Variant, b: Variant) =>
    `${ratio(n, op, a, b)}× (${ratios(n, op, a, b).map(r2).join(", ")})`;
  const perUser = (v: Variant) => {
    const byRound = [...new Set(states.map((s) => s.round))].map((round) => {
      const at = (n: number) => states.find((s) => s.round === round && s.n === n)!.bytes[v]!;
      return (at(LARGE) - at(SMALL)) / (LARGE - SMALL);
    });
    return Math.round(median(byRound));
  };
  const loads = samples.flatMap((s) => [s.load.before[0], s.load.after[0]]);
  const rows: string[][] = [];
  const row = (what: string, ours: string, ref: string, r: string, cpu: string, target: string, met?: boolean) =>
    rows.push([what, ours, ref, r, cpu, target, met === undefined ? "–" : met ? "met" : "**missed**"]);
  const targets: Record<string, number> = {
    [`preview-${SMALL}`]: 1.15,
    [`preview-${LARGE}`]: 1.15,
    [`up-${SMALL}`]: 1.15,
    [`up-${LARGE}`]: 1.25,
  };
  for (const op of ["preview", "up", "upNoChange", "upNoCheckpoints"] as Op[]) {
    for (const n of SIZES) {
      const t = targets[`${op}-${n}`];
      const x = ratio(n, op, "ours", "floor");
      row(
        `${opNames[op]} of ${n} vs engine floor`,
        `${med(n, op, "ours")} s`,
        `${med(n, op, "floor")} s`,
        shown(n, op, "ours", "floor"),
        cpuRatio(n, op, "ours", "floor"),
        t ? `≤ ${t}×` : "",
        t ? x <= t : undefined,
      );
    }
  }
  for (const n of SIZES) {
    const limit = (Math.ceil(n / PARALLEL) * LATENCY_MS) / 1000;
    row(
      `physical limit of \`up\` of ${n}: ceil(${n}/${PARALLEL}) × ${LATENCY_MS} ms`,
      `${med(n, "up", "ours")} s`,
      `${limit} s`,
      `${r2(med(n, "up", "ours") / limit)}× (floor ${r2(med(n, "up", "floor") / limit)}×)`,
      "",
      "",
    );
  }
  for (const op of ["up", "preview"] as Op[]) {
    row(
      `plugin overhead: ${opNames[op]} of ${SMALL} vs raw undici in a dynamic provider`,
      `${med(SMALL, op, "ours")} s`,
      `${med(SMALL, op, "raw")} s`,
      shown(SMALL, op, "ours", "raw"),
      cpuRatio(SMALL, op, "ours", "raw"),
      "",
    );
  }
  // The plugin path (YAML through the package's plugin) against the TypeScript path and both floors.
  const pairs: Array<[Variant, Variant]> = [
    ["yaml", "ours"],
    ["yaml", "yamlFloor"],
    ["yaml", "floor"],
    ["yamlFloor", "floor"],
  ];
  // Issue 60's bound: the plugin path's `up` and no-change preview no slower than the TypeScript path's.
  const yamlTargets: Partial<Record<Op, number>> = { preview: 1, up: 1 };
  for (const op of ["preview", "up", "upNoChange", "upNoCheckpoints"] as Op[]) {
    for (const n of SIZES) {
      for (const [a, b] of pairs) {
        const t = a === "yaml" && b === "ours" ? yamlTargets[op] : undefined;
        row(
          `${opNames[op]} of ${n}: ${names[a]} vs ${names[b]}`,
          `${med(n, op, a)} s`,
          `${med(n, op, b)} s`,
          shown(n, op, a, b),
          cpuRatio(n, op, a, b),
          t ? `≤ ${t.toFixed(2)}×` : "",
          t ? ratio(n, op, a, b) <= t : undefined,
        );
      }
    }
  }
  const startMs = (v: "yaml" | "yamlFloor") => r2(median(run.starts.map((s) => s[v])));
  const startRatios = run.starts.map((s) => r2(s.yaml / s.yamlFloor));
  row(
    `plugin start-up, ms from starting its executable to its port (the engine waits for this once per start; ${run.starts.length} pairs): StorageUser's plugin vs the YAML floor's`,
    `${startMs("yaml")} ms`,
    `${startMs("yamlFloor")} ms`,
    `${r2(median(startRatios))}× (${startRatios.join(", ")})`,
    "",
    "",
  );
  for (const op of ["preview", "up"] as const) {
    const k = run.pluginStarts[op];
    row(
      `plugin start-up per ${op === "up" ? "`pulumi up`" : "`pulumi preview`"} of a YAML program: ${k} starts (the YAML host's, for the schema; then the engine's, the provider) × the start-up above`,
      `${Math.round(k * startMs("yaml"))} ms`,
      `${Math.round(k * startMs("yamlFloor"))} ms`,
      `${k * startMs("yaml") >= k * startMs("yamlFloor") ? "+" : "−"}${Math.abs(Math.round(k * (startMs("yaml") - startMs("yamlFloor"))))} ms`,
      "",
      "",
    );
  }
  if (VS) {
    for (const op of ["preview", "up", "upNoChange"] as Op[]) {
      for (const n of SIZES) {
        row(
          `${opNames[op]} of ${n}: this build vs BENCH_VS (floor ratios ${ratio(n, op, "ours", "floor")}× and ${ratio(n, op, "vs", "floor")}×)`,
          `${med(n, op, "ours")} s`,
          `${med(n, op, "vs")} s`,
          shown(n, op, "ours", "vs"),
          cpuRatio(n, op, "ours", "vs"),
          "",
        );
      }
    }
  }
  // State per user on each path: the state file over the users, fixed parts included (at 200, a few B per user).
  for (const n of SIZES) {
    const at = (v: Variant) => Math.round(median(states.filter((s) => s.n === n).map((s) => s.bytes[v]! / n)));
    for (const [a, b] of [
      ["yaml", "ours"],
      ["yaml", "floor"],
      ["ours", "floor"],
      ["yamlFloor", "floor"],
    ] as const) {
      // Issue 60's bound: a user's state on the plugin path at most 1.10× the TypeScript path's.
      const t = a === "yaml" && b === "ours" ? 1.1 : undefined;
      row(
        `state bytes / users at ${n}: ${names[a]} vs ${names[b]}`,
        `${at(a)} B`,
        `${at(b)} B`,
        `${r2(at(a) / at(b))}×`,
        "",
        t ? `≤ ${t.toFixed(2)}×` : "",
        t ? at(a) / at(b) <= t : undefined,
      );
    }
  }
  // Bytes per user need two sizes; a run of one size (BENCH_SIZES=200) reports the rest.
  if (LARGE !== undefined) {
    const [ours, floor] = [perUser("ours"), perUser("floor")];
    row(
      `state bytes per user, (bytes(${LARGE}) − bytes(${SMALL})) / ${LARGE - SMALL}`,
      `${ours} B`,
      `${floor} B`,
      `+${ours - floor} B`,
      "",
      "≤ floor + 700 B",
      ours - floor <= 700,
    );
    const yaml = perUser("yaml");
    row(
      `state bytes per user, (bytes(${LARGE}) − bytes(${SMALL})) / ${LARGE - SMALL}: YAML StorageUser vs StorageUser`,
      `${yaml} B`,
      `${ours} B`,
      `${r2(yaml / ours)}×`,
      "",
      "≤ 1.10×",
      yaml / ours <= 1.1,
    );
  }

  const cpus = os.cpus();
  const header = [
    `Run of ${run.started.toISOString().slice(0, 16).replace("T", " ")} UTC, commit \`${execFileSync("git", ["-C", repoRoot, "rev-parse", "--short", "HEAD"], { encoding: "utf8" }).trim()}\`, ${ROUNDS} rounds.`,
    `Package measured: ${process.env.BENCH_PACKAGE ? `the build in \`${path.relative(repoRoot, process.env.BENCH_PACKAGE)}\`` : `this checkout packed and installed (scripts/consumer.ts)${execFileSync("git", ["-C", repoRoot, "status", "--porcelain", "provider"], { encoding: "utf8" }).trim() ? ", with provider/ modified since HEAD" : ""}`}.`,
    ...(VS
      ? [
          `Compared in the same pairs with the build in \`${VS}\` (BENCH_VS, version ${(JSON.parse(fs.readFileSync(path.join(VS, "package.json"), "utf8")) as { version: string }).version}).`,
        ]
      : []),
    `Command: \`${VS ? `BENCH_VS=${VS} ` : ""}${process.env.BENCH_SIZES ? `BENCH_SIZES=${process.env.BENCH_SIZES} ` : ""}${process.env.BENCH_PACKAGE ? `BENCH_PACKAGE=${path.relative(repoRoot, process.env.BENCH_PACKAGE)} ` : ""}${process.env.BENCH_ROUNDS ? `BENCH_ROUNDS=${ROUNDS} ` : ""}npm run bench\`. Settings: API latency ${LATENCY_MS} ms, \`--parallel ${PARALLEL}\`, pulumi ${cliVersion()}, program and dynamic-provider plugin on Node ${nodeVersion()}; YAML StorageUser's plugin the release's binary (Node ${nodeVersion(seaNode)} inside), installed with \`pulumi plugin install --file\`.`,
    `Machine: nproc ${os.availableParallelism()} (${cpus[0]?.model}), ${r2(os.totalmem() / 2 ** 30)} GiB memory. Load average (1/5/15 min) ${run.loadAtStart.join(" / ")} at the start, ${run.loadAtEnd.join(" / ")} at the end; 1-min load around the pairs ${Math.min(...loads)}–${Math.max(...loads)}.`,
    `1-min load before → after each pair, in run order: ${samples.map((s) => `${s.op} ${s.n}: ${s.load.before[0]} → ${s.load.after[0]}`).join("; ")}.`,
  ];
  const table = [
    "| Measurement | Measured (median) | Reference (median) | Ratio: median of the pairs (each pair) | CPU ratio | Target | |",
    "| --- | --- | --- | --- | --- | --- | --- |",
    ...rows.map((r) => `| ${r.join(" | ")} |`),
  ];
  const section = [...header, "", ...table].join("\n");
  console.log(`\n${section}\n`);

  const summary = { ...run, settings: { rounds: ROUNDS, parallel: PARALLEL, latencyMs: LATENCY_MS }, rows };
  // The raw pairs stay out of git (bench/work is ignored); the table below is the committed summary.
  const out = process.env.BENCH_OUT ?? path.join(repoRoot, "bench", "work");
  fs.mkdirSync(out, { recursive: true });
  fs.writeFileSync(path.join(out, "summary.json"), JSON.stringify(summary, null, 1) + "\n");
  if (!process.env.BENCH_OUT) {
    const readme = path.join(repoRoot, "bench", "README.md");
    const text = fs.readFileSync(readme, "utf8");
    const re = /(<!-- results:start -->\n)[\s\S]*?(<!-- results:end -->)/;
    if (!re.test(text))
      throw new Error("bench/README.md has no <!-- results:start --> ... <!-- results:end --> section");
    fs.writeFileSync(
      readme,
      text.replace(re, (_m, a, b) => `${a}${section}\n${b}`),
    );
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
