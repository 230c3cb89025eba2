/**
 * `node dist/bench/shapes.js` (after `npm run build`): what storing StorageUser's outputs costs an
 * `up` (creates), apart from the package: the floor program storing each shape of
 * programs/shaped-floor, interleaved, order reversed every other round, CPU seconds of the whole
 * command (./cpu.ts). Environment: SHAPES (floor,keys,data,secret), N (400), ROUNDS (2), and
 * SKIP_CHECKPOINTS=1 to run every `up` with PULUMI_SKIP_CHECKPOINTS=true. Prints one line per run.
 */
import * as os from "node:os";
import * as path from "node:path";
import { TestStack } from "../scripts/stack";
import { meterCli, readCpu } from "./cpu";
import { workspace } from "./workspace";

async function main() {
  const ws = workspace("shapes");
  meterCli();
  const shapes = (process.env.SHAPES ?? "floor,keys,data,secret").split(",");
  const [n, rounds] = [Number(process.env.N ?? 400), Number(process.env.ROUNDS ?? 2)];
  const env = { ...(process.env.SKIP_CHECKPOINTS ? { PULUMI_SKIP_CHECKPOINTS: "true" } : {}) };
  console.log(
    `shapes ${shapes.join(",")}, up of ${n}, ${rounds} rounds${env.PULUMI_SKIP_CHECKPOINTS ? ", PULUMI_SKIP_CHECKPOINTS=true" : ""}; load ${os.loadavg()[0].toFixed(2)}`,
  );
  for (let round = 0; round < rounds; round++) {
    for (const shape of round % 2 ? [...shapes].reverse() : shapes) {
      const config = {
        "psu-bench:count": String(n),
        "psu-bench:prefix": `${shape}-${round}`,
        "psu-bench:shape": shape,
      };
      const stack = await TestStack.create({
        programDir: ws.program("shaped-floor"),
        config,
        env: { BENCH_SHAPE: shape, BENCH_LATENCY_MS: "50" },
      });
      try {
        const cpuFile = path.join(stack.workDir, "cpu.txt");
        const start = performance.now();
        const r = await stack.up(["--parallel", "10"], { env: { ...env, BENCH_CPU_FILE: cpuFile } });
        if (r.code !== 0 || !r.output.includes(`+ ${n + 1} created`))
          throw new Error(`up of ${shape} failed:\n${r.output.slice(-2000)}`);
        const seconds = ((performance.now() - start) / 1000).toFixed(2);
        console.log(
          `round ${round + 1} ${shape}: ${seconds} s, CPU ${readCpu(cpuFile).toFixed(2)} s, state ${Buffer.byteLength(stack.stateFileText())} B; load ${os.loadavg()[0].toFixed(2)}`,
        );
      } finally {
        await stack.dispose();
      }
    }
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
