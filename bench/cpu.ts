/**
 * CPU seconds of a whole `pulumi` command: the engine, the language host, the program and the
 * dynamic-provider plugin. The harness runs `pulumi` from PULUMI_STORAGE_USER_CLI_DIR; pointed at
 * a directory whose `pulumi` is a bash wrapper around the real one (plugins linked beside it),
 * every command writes its children's user+system time (bash `times`, i.e. every process it and
 * its descendants waited for) to $BENCH_CPU_FILE. On a shared machine CPU time moves much less
 * with other people's load than wall time does.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { repoRoot } from "../scripts/stack";

/** Call before the first TestStack: later stacks run the metered CLI. */
export function meterCli(): void {
  const toolchain = path.join(repoRoot, "dist", "scripts", "toolchain.js");
  // In a child: locateCli() caches its answer, and this process must resolve the wrapper instead.
  const real = execFileSync(
    process.execPath,
    ["-e", `console.log(require(${JSON.stringify(toolchain)}).locateCli())`],
    { encoding: "utf8" },
  ).trim();
  const dir = path.join(repoRoot, "bench", "work", "metered-cli");
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  for (const f of fs.readdirSync(real)) if (f !== "pulumi") fs.symlinkSync(path.join(real, f), path.join(dir, f));
  const wrapper = `#!/usr/bin/env bash\n"${path.join(real, "pulumi")}" "$@"\nrc=$?\n[ -n "$BENCH_CPU_FILE" ] && times > "$BENCH_CPU_FILE"\nexit $rc\n`;
  fs.writeFileSync(path.join(dir, "pulumi"), wrapper, { mode: 0o755 });
  process.env.PULUMI_STORAGE_USER_CLI_DIR = dir;
}

/** The children's user + system seconds from a `times` report ("0m1.234s 0m0.456s" lines). */
export function readCpu(file: string): number {
  const lines = fs.readFileSync(file, "utf8").trim().split("\n");
  const secs = (t: string) => {
    const m = /^(\d+)m([\d.]+)s$/.exec(t);
    if (!m) throw new Error(`unexpected times output: ${t}`);
    return Number(m[1]) * 60 + Number(m[2]);
  };
  return lines[1]
    .split(/\s+/)
    .map(secs)
    .reduce((a, b) => a + b, 0);
}
