// The process tree under a pid, for the tests that kill or interrupt the CLI and then check what
// it left running (the language host and plugins sit in process groups of their own).
import { execFileSync } from "node:child_process";

/** Pids of every descendant of `pid`, from `ps`. */
export function descendants(pid: number): number[] {
  const rows = execFileSync("ps", ["-eo", "pid=,ppid="], { encoding: "utf8" })
    .trim()
    .split("\n")
    .map((l) => l.trim().split(/\s+/).map(Number));
  const out: number[] = [];
  const walk = (p: number) => rows.filter(([, pp]) => pp === p).forEach(([c]) => (out.push(c), walk(c)));
  walk(pid);
  return out;
}
