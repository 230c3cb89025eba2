/**
 * `node dist/bench/profile.js [n]` (after `npm run build`): where a no-change `pulumi preview` of n
 * (default 200) StorageUsers spends its time, next to the engine floor. Creates both stacks, then
 * runs one preview each with NODE_OPTIONS=--cpu-prof, which reaches every Node process the CLI
 * starts: the language host, the program (`cmd/run`) and the dynamic-provider plugin. Prints, per
 * process, busy CPU by package, and for this package's code: its self time by function and the time
 * of everything it calls (samples with one of its frames on the stack), by the leaf's package.
 * Profiles are kept in bench/work/profile/ for Chrome DevTools or speedscope.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { randomBytes } from "node:crypto";
import { startApiServer } from "../server/api-server";
import { repoRoot, TestStack } from "../scripts/stack";
import { workspace } from "./workspace";

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
}

const OURS = "pulumi-storage-user";
/** The package a script URL belongs to: the last node_modules entry, else node's own, else the repo's file. */
function packageOf(url: string): string {
  if (!url) return "(native, GC, idle)";
  if (url.startsWith("node:")) return "node";
  const m = /.*node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (m) return m[1];
  return url.includes("/programs/") ? "the program's index.ts" : path.relative(repoRoot, url.replace("file://", ""));
}

function summarize(file: string) {
  const p = JSON.parse(fs.readFileSync(file, "utf8")) as Profile;
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const urls = new Set(p.nodes.map((n) => n.callFrame.url));
  const role = [...urls].some((u) => u.includes("cmd/dynamic-provider"))
    ? "plugin"
    : [...urls].some((u) => u.includes("cmd/run"))
      ? "program"
      : "language host";
  const self = new Map<string, number>();
  const oursSelf = new Map<string, number>();
  const oursCalls = new Map<string, number>();
  const byFunction = new Map<string, number>();
  const userCalls = new Map<string, number>();
  let busy = 0;
  let oursInclusive = 0;
  p.samples.forEach((id, i) => {
    const ms = (p.timeDeltas[i] ?? 0) / 1000;
    const leaf = byId.get(id)!;
    if (leaf.callFrame.functionName === "(idle)") return;
    busy += ms;
    // Node internals are charged to the package that called into them.
    let charged = leaf;
    while (packageOf(charged.callFrame.url) === "node" && parent.has(charged.id))
      charged = byId.get(parent.get(charged.id)!)!;
    const pkg = packageOf(charged.callFrame.url);
    self.set(pkg, (self.get(pkg) ?? 0) + ms);
    if (pkg === OURS) {
      const fn = `${leaf.callFrame.functionName || "(module body)"} ${path.basename(leaf.callFrame.url)}:${leaf.callFrame.lineNumber + 1}`;
      oursSelf.set(fn, (oursSelf.get(fn) ?? 0) + ms);
    }
    const fn = `${charged.callFrame.functionName || "(anonymous)"} [${pkg}]`;
    byFunction.set(fn, (byFunction.get(fn) ?? 0) + ms);
    // The innermost frame of the program's own code (its index.ts or this package) and what it called.
    let callee: Node | undefined;
    for (
      let n: Node | undefined = leaf;
      n;
      callee = n, n = parent.has(n.id) ? byId.get(parent.get(n.id)!) : undefined
    ) {
      const owner = packageOf(n.callFrame.url);
      if (owner !== OURS && owner !== "the program's index.ts") continue;
      const key = `${n.callFrame.functionName || "(module body)"} [${owner}] -> ${callee ? `${callee.callFrame.functionName || "(anonymous)"} [${packageOf(callee.callFrame.url)}]` : "(self)"}`;
      userCalls.set(key, (userCalls.get(key) ?? 0) + ms);
      if (owner === OURS) {
        oursInclusive += ms;
        oursCalls.set(pkg, (oursCalls.get(pkg) ?? 0) + ms);
      }
      break;
    }
  });
  const top = (m: Map<string, number>, k = 6) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, k)
      .map(([name, ms]) => `${name} ${Math.round(ms)}`)
      .join(", ");
  return {
    role,
    busy: Math.round(busy),
    byPackage: top(self, 8),
    oursInclusive: Math.round(oursInclusive),
    oursCalls: top(oursCalls),
    oursSelf: top(oursSelf, 8),
    byFunction: top(byFunction, 12),
    userCalls: top(userCalls, 8),
  };
}

async function main() {
  const n = Number(process.argv[2] ?? 200);
  const ws = workspace("profile-run");
  const token = randomBytes(16).toString("hex");
  const api = await startApiServer({ token, latencyMs: 50 });
  const outDir = path.join(repoRoot, "bench", "work", "profile");
  fs.rmSync(outDir, { recursive: true, force: true });
  try {
    for (const [variant, program] of [
      ["StorageUser", "storage-users"],
      ["floor", "noop-users"],
    ]) {
      const stack = await TestStack.create({
        programDir: ws.program(program),
        config: {
          "psu-bench:count": String(n),
          "psu-bench:prefix": `prof-${randomBytes(3).toString("hex")}`,
          "psu-bench:latencyMs": "50",
          "storage:baseUrl": api.url,
        },
        secrets: { "storage:accessToken": token },
      });
      try {
        await stack.up(["--parallel", "10"]);
        const dir = path.join(outDir, variant);
        const start = performance.now();
        const hook = path.join(__dirname, "cpu-profile-hook.js");
        fs.mkdirSync(dir, { recursive: true });
        const r = await stack.preview(["--parallel", "10", "--profiling", path.join(outDir, `engine-${variant}`)], {
          env: { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${dir} --require ${hook}` },
        });
        if (r.code !== 0) throw new Error(r.output);
        console.log(
          `\n## no-change preview of ${n}, ${variant}: ${((performance.now() - start) / 1000).toFixed(2)} s wall (profiled)`,
        );
        const all = fs.readdirSync(dir).map((f) => summarize(path.join(dir, f)));
        const helpers = all.filter((s) => s.role === "language host");
        console.log(
          `- language host and its helpers (${helpers.length} processes): ${helpers.reduce((a, s) => a + s.busy, 0)} ms busy`,
        );
        const pprof = fs.readdirSync(outDir).find((f) => f.startsWith(`engine-${variant}.`) && f.endsWith(".cpu"))!;
        const top = execFileSync("go", ["tool", "pprof", "-top", "-cum", "-nodecount=40", path.join(outDir, pprof)], {
          encoding: "utf8",
        });
        console.log(
          `- engine (Go pprof, ${pprof}), top by cumulative time:\n${top
            .split("\n")
            .slice(0, 50)
            .map((l) => `    ${l}`)
            .join("\n")}`,
        );
        for (const s of all.filter((x) => x.role !== "language host")) {
          console.log(
            `- ${s.role}: ${s.busy} ms busy; by package (ms, node internals charged to the caller): ${s.byPackage}`,
          );
          console.log(`  - top functions (ms, node internals charged to the caller): ${s.byFunction}`);
          if (s.role === "program")
            console.log(
              `  - the program's own code (innermost frame of index.ts or ${OURS}) and what it called: ${s.userCalls}`,
            );
          if (s.oursInclusive)
            console.log(
              `  - under ${OURS} frames: ${s.oursInclusive} ms, by leaf package: ${s.oursCalls}\n  - ${OURS} self time by function: ${s.oursSelf}`,
            );
        }
      } finally {
        await stack.dispose();
      }
    }
  } finally {
    await api.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
