"use strict";
/**
 * `npm run bench` (= `npm run build && bash bench/run.sh`): issue 5's benchmark. Every figure
 * comes from the real Pulumi CLI (scripts/stack.ts) against the local storage API
 * (server/api-server.ts) with a fixed injected latency, and every comparison is run
 * interleaved (A B, then B A, ...) so that drift from other work on the machine falls on both
 * sides; the report gives medians and the median of per-pair ratios.
 *
 *   1. provider overhead: N creates through the dynamic-provider plugin (driven over gRPC as the
 *      engine drives it, lib/plugin-driver.js) vs the same N POSTs from undici (lib/floor-client.js)
 *   2. engine scale: `pulumi up --parallel P` of S StorageUsers vs S no-op dynamic resources
 *   3. state cost: bytes per user from the raw state file, __provider, no-change preview/up
 *   4. peers: a docs-style dynamic provider (undici captured in the closure), @pulumi/command
 *   5. where the time goes: CPU per process, CPU profiles, checkpoints off
 *
 * Knobs (env): BENCH_QUICK=1 (smoke mode), BENCH_SIZES=50,100,200,400, BENCH_N=200,
 * BENCH_REPEATS=3, BENCH_PLUGIN_REPEATS=5, BENCH_PARALLEL=10, BENCH_LATENCY_MS=50,
 * BENCH_PROFILE=1, BENCH_DIAGNOSTICS=1, BENCH_RESULTS_DIR=bench/results (quick: bench/work/quick-results;
 * bench/README.md is rewritten only for a run that writes bench/results).
 */
const { spawn, execFileSync, spawnSync } = require("node:child_process");
const { randomBytes } = require("node:crypto");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");

const root = path.resolve(__dirname, "..");
const { TestStack, cliVersion, locateCli } = require(path.join(root, "dist", "scripts", "stack.js"));
const { startApiServer } = require(path.join(root, "dist", "server", "api-server.js"));
const { instrument } = require("./lib/api-timing");
const { sampleTree } = require("./lib/proctree");
const { analyzeState, findPlaintext } = require("./lib/state");
const { median, round } = require("./lib/stats");
const { summarize: summarizeCpuProfile } = require("./lib/cpuprofile-summary");
const { writeReport } = require("./lib/report");

const quick = process.env.BENCH_QUICK === "1";
const envList = (name, dflt) => (process.env[name] ? process.env[name].split(",").map(Number) : dflt);
const envNum = (name, dflt) => (process.env[name] ? Number(process.env[name]) : dflt);
const settings = {
  quick,
  latencyMs: envNum("BENCH_LATENCY_MS", 50),
  parallel: envNum("BENCH_PARALLEL", 10),
  sizes: envList("BENCH_SIZES", quick ? [10, 20] : [50, 100, 200, 400]),
  n: envNum("BENCH_N", quick ? 20 : 200),
  repeats: envNum("BENCH_REPEATS", quick ? 1 : 3),
  pluginRepeats: envNum("BENCH_PLUGIN_REPEATS", quick ? 1 : 5),
  profile: (process.env.BENCH_PROFILE ?? (quick ? "0" : "1")) === "1",
  diagnostics: (process.env.BENCH_DIAGNOSTICS ?? (quick ? "0" : "1")) === "1",
};
settings.sizes = [...new Set(settings.sizes)].sort((a, b) => a - b);
const workDir = path.join(__dirname, "work"); // gitignored
// A smoke run must not replace the published figures: it writes under bench/work/.
const resultsDir = path.resolve(process.env.BENCH_RESULTS_DIR || (quick ? path.join(workDir, "quick-results") : path.join(__dirname, "results")));
const started = Date.now();

const log = (...a) => console.log(`[bench ${((Date.now() - started) / 1000).toFixed(0).padStart(4)}s]`, ...a);

/** The credentials a peer that stores what the API returned keeps per user. */
const USER_CREDENTIALS = ["name", "password", "swift", "s3", "ftp"];
const VARIANTS = {
  ours: {
    label: "StorageUser",
    program: "storage-users",
    type: "pulumi-nodejs:dynamic/storage:StorageUser",
    // One secret output holds them all; name, password, swift, s3, ftp, env and ftpUrl are
    // derived from it in the program and not stored.
    credentials: ["credentials"],
  },
  floor: { label: "engine floor (no-op dynamic resource)", program: "noop-users", type: "pulumi-nodejs:dynamic/bench:NoopUser", credentials: [] },
  peerUndici: {
    label: "peer (a): docs-style dynamic provider, undici in the closure",
    program: "peer-undici",
    type: "pulumi-nodejs:dynamic:Resource",
    credentials: USER_CREDENTIALS,
  },
  peerCommand: { label: "peer (b): @pulumi/command local.Command + curl", program: "peer-command", type: "command:local:Command", credentials: ["stdout"] },
};

const programDir = (v) => path.join(__dirname, "programs", VARIANTS[v].program);
const upArgs = () => ["--parallel", String(settings.parallel)];
const upCommand = (v, size, extra = "") =>
  `${extra}pulumi up --yes --non-interactive --skip-preview --parallel ${settings.parallel}   # bench/programs/${VARIANTS[v].program}, psu-bench:count=${size}`;

function machine() {
  const cpus = os.cpus();
  const sh = (cmd, args) => {
    try {
      return execFileSync(cmd, args, { encoding: "utf8" }).trim();
    } catch {
      return undefined;
    }
  };
  const pkgVersion = (name) => {
    try {
      return JSON.parse(fs.readFileSync(require.resolve(`${name}/package.json`, { paths: [root] }), "utf8")).version;
    } catch {
      return undefined;
    }
  };
  return {
    nproc: Number(sh("nproc", [])) || cpus.length,
    cpuModel: cpus[0]?.model,
    memoryGiB: round(os.totalmem() / 2 ** 30, 1),
    kernel: os.release(),
    node: process.version,
    pulumi: cliVersion(),
    pulumiSdk: pkgVersion("@pulumi/pulumi"),
    undici: pkgVersion("undici"),
    go: sh("go", ["version"]),
    gitCommit: sh("git", ["-C", root, "rev-parse", "--short", "HEAD"]),
    loadAverageAtStart: os.loadavg().map((x) => round(x, 2)),
  };
}

/** Runs a node script, returns its last stdout line parsed as JSON. */
function runNode(script, args, env = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, ...args], { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, ...env } });
    let out = "";
    let err = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (err += d));
    child.on("close", (code) => {
      if (code !== 0) return reject(new Error(`${path.basename(script)} exited ${code}: ${err.slice(-2000)}`));
      try {
        resolve(JSON.parse(out.trim().split("\n").pop()));
      } catch (e) {
        reject(new Error(`${path.basename(script)} printed no JSON: ${out.slice(-500)} ${err.slice(-500)}`));
      }
    });
  });
}

let api;
let timing;
const token = `bench-${randomBytes(18).toString("base64url")}`;
let runCounter = 0;

async function newStack(variant, size, env = {}) {
  const stack = await TestStack.create({ programDir: programDir(variant), env });
  const prefix = `r${++runCounter}${variant.toLowerCase()}${randomBytes(2).toString("hex")}`;
  await stack.must([
    "config",
    "set-all",
    ...["--plaintext", `psu-bench:count=${size}`],
    ...["--plaintext", `psu-bench:prefix=${prefix}`],
    ...["--plaintext", `psu-bench:latencyMs=${settings.latencyMs}`],
    ...["--plaintext", `psu-bench:baseUrl=${api.url}`],
    ...["--plaintext", `storage:baseUrl=${api.url}`],
    ...["--secret", `psu-bench:accessToken=${token}`],
    ...["--secret", `storage:accessToken=${token}`],
  ]);
  return { stack, prefix };
}

/** One timed pulumi command with CPU per process class (and the API server's, in this process). */
async function timed(fn) {
  const sampler = sampleTree(process.pid);
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const r = await fn();
  const ms = performance.now() - t0;
  const cpu = sampler.stop();
  const c = process.cpuUsage(cpu0);
  cpu.benchProcess = round((c.user + c.system) / 1e6, 2); // the API server + this driver
  return { r, ms: Math.round(ms), cpu };
}

const credentialValues = (prefix) =>
  api.users
    .filter((u) => u.Name.startsWith(`${prefix}-`))
    .slice(0, 5)
    .flatMap((u) => [u.Password, u.SwiftApiConnection.Password, u.S3Connection.SecretKey, u.FtpConnection.Password]);

/**
 * A fresh stack of `size` resources of one variant: `pulumi up` timed; then state analysis,
 * a scan of the raw state for real credential values; optionally no-change preview and up.
 */
async function upCase(variant, size, { noChange = false, env = {}, extraArgs = [], keep = false } = {}) {
  const v = VARIANTS[variant];
  env = { ...(v.env ?? {}), ...env };
  const { stack, prefix } = await newStack(variant, size, env);
  const shownEnv = Object.fromEntries(Object.entries(env).filter(([k]) => k !== "PATH"));
  const result = { variant, size, env: Object.keys(shownEnv).length ? shownEnv : undefined };
  try {
    timing.begin();
    const up = await timed(() => stack.up([...upArgs(), ...extraArgs]));
    const windows = timing.end();
    result.ok = up.r.code === 0;
    result.upMs = up.ms;
    result.cpu = up.cpu;
    result.apiWindow = windows.all;
    if (!result.ok) {
      result.error = up.r.output.slice(-3000);
      log(`  ${variant} N=${size}: pulumi up FAILED (exit ${up.r.code})`);
      return result;
    }
    const raw = stack.stateFileText();
    const analysis = analyzeState(raw, v.type, v.credentials);
    result.providerText = analysis.providerText;
    delete analysis.providerText;
    result.state = analysis;
    const creds = credentialValues(prefix);
    result.secrets = { ...findPlaintext(raw, creds), tokenInPlaintext: raw.includes(token) };
    if (noChange) {
      const pv = await timed(() => stack.preview());
      const up2 = await timed(() => stack.up(upArgs()));
      result.noChangePreview = { ok: pv.r.code === 0, ms: pv.ms, cpu: pv.cpu };
      result.noChangeUp = { ok: up2.r.code === 0, ms: up2.ms, cpu: up2.cpu };
    }
    log(
      `  ${variant.padEnd(11)} N=${String(size).padEnd(4)} up ${(result.upMs / 1000).toFixed(1)}s` +
        (result.apiWindow ? `, create window ${(result.apiWindow.windowMs / 1000).toFixed(1)}s` : "") +
        `, state ${(analysis.fileBytes / 1024).toFixed(0)} KiB` +
        (noChange ? `, no-change preview ${(result.noChangePreview.ms / 1000).toFixed(1)}s up ${(result.noChangeUp.ms / 1000).toFixed(1)}s` : "") +
        `, cpu ${JSON.stringify(result.cpu)}`,
    );
    if (keep) result.stack = stack;
    return result;
  } finally {
    if (!keep) await stack.dispose();
  }
}

async function probe() {
  log("probe: one StorageUser, to take __provider from a real state file");
  const res = await upCase("ours", 1);
  if (!res.ok) throw new Error(`probe pulumi up failed:\n${res.error}`);
  fs.mkdirSync(workDir, { recursive: true });
  const providerFile = path.join(workDir, "provider.txt");
  fs.writeFileSync(providerFile, res.providerText);
  return { providerFile, providerText: res.providerText };
}

/** Phase 1: plugin path vs undici floor, interleaved, fresh processes each time. */
async function providerOverhead(providerFile) {
  const { n, parallel, pluginRepeats } = settings;
  log(`phase 1: provider overhead, ${n} creates at concurrency ${parallel}, ${pluginRepeats} interleaved pairs`);
  const pairs = [];
  const floorRun = async (i) => {
    const prefix = `f${i}${randomBytes(2).toString("hex")}`;
    timing.begin();
    const out = await runNode(path.join(__dirname, "lib", "floor-client.js"), [api.url, token, prefix, String(n), String(parallel), "2"]);
    out.apiWindows = timing.end((u) => (u.includes("-b0-") ? "cold" : "warm"));
    return out;
  };
  const pluginRun = async (i, extra = {}) => {
    const prefix = `p${i}${randomBytes(2).toString("hex")}`;
    timing.begin();
    const out = await runNode(path.join(__dirname, "lib", "plugin-driver.js"), [
      JSON.stringify({ programDir: programDir("ours"), baseUrl: api.url, token, prefix, n, concurrency: parallel, batches: 2, providerFile, ...extra }),
    ]);
    out.apiWindows = timing.end((u) => (u.includes("-b0-") ? "cold" : "warm"));
    return out;
  };
  for (let i = 0; i < pluginRepeats; i++) {
    const pair = {};
    if (i % 2 === 0) {
      pair.floor = await floorRun(i);
      pair.plugin = await pluginRun(i);
    } else {
      pair.plugin = await pluginRun(i);
      pair.floor = await floorRun(i);
    }
    log(`  pair ${i + 1}: floor ${JSON.stringify(pair.floor.batchesMs)} ms, plugin ${JSON.stringify(pair.plugin.batchesMs)} ms (plugin start ${pair.plugin.pluginStartMs} ms)`);
    pairs.push(pair);
  }
  let profile;
  if (settings.profile) {
    const dir = path.join(workDir, `profile-plugin-${Date.now()}`);
    // Two batches on one plugin, profiling only the second (warm) one: the steady-state cost per create.
    await pluginRun("prof", {
      signalBeforeLastBatch: "SIGUSR2",
      pluginEnv: { NODE_OPTIONS: `--require ${path.join(__dirname, "lib", "cpu-profile-hook.js")}`, BENCH_CPU_PROFILE_DIR: dir, BENCH_CPU_PROFILE_FROM: "SIGUSR2" },
    });
    const file = fs.existsSync(dir) ? fs.readdirSync(dir).find((f) => f.startsWith("plugin-")) : undefined;
    if (file) profile = { ...summarizeCpuProfile(path.join(dir, file), 12), creates: n };
  }
  return { n, parallel, pairs, profile, commands: { floor: `node bench/lib/floor-client.js <url> <token> <prefix> ${n} ${parallel} 2`, plugin: `node bench/lib/plugin-driver.js '{"n":${n},"concurrency":${parallel},"batches":2,...}'` } };
}

/** Phases 2-4: rounds over sizes; ours and the floor at every size, the peers at N. */
async function engineRounds(peers) {
  const { sizes, repeats, n } = settings;
  const maxSize = sizes[sizes.length - 1];
  log(`phase 2-4: pulumi up of ${sizes.join("/")} resources, ${repeats} interleaved round(s); peers at N=${n}`);
  const runs = [];
  for (let r = 0; r < repeats; r++) {
    for (const size of sizes) {
      let variants = ["ours", "floor", ...(size === n ? peers : [])];
      // Rotate the order every round: A B C, B C A, ... so no variant always runs first.
      variants = variants.map((_, i) => variants[(i + r) % variants.length]);
      for (const variant of variants) {
        const res = await upCase(variant, size, { noChange: size === maxSize && (variant === "ours" || variant === "floor") });
        delete res.providerText;
        res.round = r;
        runs.push(res);
      }
    }
  }
  if (!sizes.includes(n)) {
    for (let r = 0; r < repeats; r++) {
      for (const variant of ["ours", ...peers]) {
        const res = await upCase(variant, n);
        delete res.providerText;
        res.round = r;
        runs.push(res);
      }
    }
  }
  return runs;
}

/** Phase 5: where the time goes. Checkpoints off (engine switch), and profiles of one up each. */
async function diagnostics() {
  const out = {};
  const { n } = settings;
  if (settings.diagnostics) {
    log(`diagnostics: PULUMI_SKIP_CHECKPOINTS=true (engine persists state once at the end instead of per step), N=${n}`);
    out.skipCheckpoints = [];
    const pairs = quick ? 1 : 3;
    for (let r = 0; r < pairs; r++) {
      for (const variant of r % 2 ? ["floor", "ours"] : ["ours", "floor"]) {
        const res = await upCase(variant, n, { env: { PULUMI_SKIP_CHECKPOINTS: "true" } });
        delete res.providerText;
        res.round = r;
        out.skipCheckpoints.push(res);
      }
    }
  }
  if (settings.profile) {
    log(`diagnostics: one profiled pulumi up each (engine pprof via --profiling, Node CPU profiles of the program and the plugin), N=${n}`);
    out.profiles = {};
    for (const variant of ["ours", "floor", "peerUndici"]) {
      const dir = path.join(workDir, `profile-${variant}-${Date.now()}`);
      fs.mkdirSync(dir, { recursive: true });
      const res = await upCase(variant, n, {
        env: { NODE_OPTIONS: `--require ${path.join(__dirname, "lib", "cpu-profile-hook.js")}`, BENCH_CPU_PROFILE_DIR: dir },
        extraArgs: ["--profiling", path.join(dir, "engine")],
      });
      const prof = { upMs: res.upMs, cpu: res.cpu, ok: res.ok };
      const engineCpu = fs.readdirSync(dir).find((f) => f.startsWith("engine") && f.endsWith(".cpu"));
      if (engineCpu) prof.engine = goPprofSummary(path.join(dir, engineCpu));
      const biggest = (prefix) =>
        fs
          .readdirSync(dir)
          .filter((f) => f.startsWith(prefix) && f.endsWith(".cpuprofile"))
          .map((f) => path.join(dir, f))
          .sort((a, b) => fs.statSync(b).size - fs.statSync(a).size)[0];
      for (const role of ["launcher", "plugin"]) {
        const f = biggest(role);
        if (f) prof[role] = summarizeCpuProfile(f, 10);
      }
      out.profiles[variant] = prof;
    }
  }
  return out;
}

/** Seconds of engine CPU in the functions that matter, from `go tool pprof -top -cum`. */
function goPprofSummary(file) {
  const r = spawnSync("go", ["tool", "pprof", "-top", "-cum", "-nodecount=400", file], { encoding: "utf8" });
  if (r.status !== 0) return { error: (r.stderr || "").slice(0, 300) };
  const total = /Total samples = ([\d.]+)(m?s)/.exec(r.stdout);
  const sec = (v, unit) => Number(v) / (unit === "ms" ? 1000 : 1);
  const cum = (pattern) => {
    // columns: flat flat% sum% cum cum% name
    const parts = r.stdout.split("\n").find((l) => l.includes(pattern))?.trim().split(/\s+/);
    const c = parts && /^([\d.]+)(m?s)$/.exec(parts[3]);
    return c ? round(sec(c[1], c[2]), 2) : 0;
  };
  return {
    totalCpuS: total ? round(sec(total[1], total[2]), 2) : undefined,
    saveSnapshotS: cum("(*SnapshotManager).saveSnapshot"),
    serializeDeploymentS: cum("stack.SerializeDeploymentWithMetadata"),
    jsonMarshalS: cum("encoding/json.(*encodeState).marshal"),
    md5S: cum("crypto/md5.(*digest).Write"),
    file: path.relative(root, file),
  };
}

async function main() {
  fs.mkdirSync(resultsDir, { recursive: true });
  fs.mkdirSync(workDir, { recursive: true });
  // Profiles of the previous run (several MB each) are only kept until the next one.
  for (const f of fs.readdirSync(workDir)) if (f.startsWith("profile-")) fs.rmSync(path.join(workDir, f), { recursive: true, force: true });
  locateCli();
  const info = { settings, machine: machine(), startedAt: new Date(started).toISOString() };
  log(`settings ${JSON.stringify(settings)}`);
  log(`machine ${JSON.stringify(info.machine)}`);

  // Peer (b) needs the command provider plugin: try to build it, record the outcome either way.
  const build = spawnSync("bash", [path.join(__dirname, "tools", "build-command-provider.sh")], { encoding: "utf8" });
  const commandPeer = {
    command: "bash bench/tools/build-command-provider.sh",
    exitCode: build.status,
    output: `${build.stderr}${build.stdout}`.trim().slice(-2000),
  };
  const peers = ["peerUndici"];
  let peerEnv = {};
  if (build.status === 0) {
    const pluginDir = build.stdout.trim().split("\n").pop();
    const install = spawnSync("npm", ["install", "--no-audit", "--no-fund"], { cwd: programDir("peerCommand"), encoding: "utf8" });
    commandPeer.npmInstall = { exitCode: install.status, output: `${install.stderr}`.slice(-1000) };
    if (install.status === 0) {
      peers.push("peerCommand");
      peerEnv = { PATH: `${pluginDir}${path.delimiter}${process.env.PATH}` };
      VARIANTS.peerCommand.env = peerEnv;
    }
  }
  log(`peer (b) command provider build: exit ${build.status}${build.status ? `: ${commandPeer.output.split("\n").slice(-1)[0]}` : ""}`);

  api = await startApiServer({ token, latencyMs: settings.latencyMs });
  timing = instrument(api);
  log(`local storage API on ${api.url}, latency ${settings.latencyMs} ms`);
  const results = { ...info, commandPeer };
  try {
    const pr = await probe();
    results.probe = { providerBytes: Buffer.byteLength(pr.providerText), providerText: pr.providerText };
    results.providerOverhead = await providerOverhead(pr.providerFile);
    results.runs = await engineRounds(peers);
    results.diagnostics = await diagnostics();
  } finally {
    await api.close();
  }
  results.finishedAt = new Date().toISOString();
  results.durationS = Math.round((Date.now() - started) / 1000);
  results.machine.loadAverageAtEnd = os.loadavg().map((x) => round(x, 2));
  const written = writeReport(results, resultsDir, path.join(__dirname, "README.md"));
  log(`wrote ${written.map((f) => path.relative(root, f)).join(", ")} in ${results.durationS}s`);
}

main().catch((err) => {
  console.error(err instanceof Error ? err.stack : err);
  process.exit(1);
});
