"use strict";
/**
 * CPU seconds per process of a process tree, sampled from /proc while the tree runs (the
 * processes are gone by the time a command returns, and getrusage cannot split them).
 * Each process is classified by its command line: the launcher (language host + the
 * program), the pulumi engine, the dynamic-provider plugin, other.
 */
const fs = require("node:fs");

const TICK = 100; // USER_HZ on Linux

function readProc(pid) {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    const close = stat.lastIndexOf(")");
    const fields = stat.slice(close + 2).split(" ");
    const ppid = Number(fields[1]);
    const cpu = (Number(fields[11]) + Number(fields[12])) / TICK;
    const args = fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ");
    return { pid, ppid, cpu, args };
  } catch {
    return undefined;
  }
}

function classify(args) {
  if (args.includes("dynamic-provider")) return "plugin";
  if (args.includes("pulumi-launcher")) return "launcher";
  if (/(^|\/)pulumi\s/.test(args) || /\/pulumi$/.test(args.trim())) return "engine";
  return "other";
}

/**
 * Starts sampling the descendants of `rootPid` (not itself); `stop()` returns CPU seconds by
 * class. A process that lives less than one period between samples is missed; the ones that
 * matter here live for the whole command.
 */
function sampleTree(rootPid, everyMs = 200) {
  const seen = new Map();
  const scan = () => {
    const all = [];
    for (const name of fs.readdirSync("/proc")) {
      if (!/^\d+$/.test(name)) continue;
      const p = readProc(Number(name));
      if (p) all.push(p);
    }
    const inTree = new Set([rootPid]);
    let grew = true;
    while (grew) {
      grew = false;
      for (const p of all) {
        if (!inTree.has(p.pid) && inTree.has(p.ppid)) {
          inTree.add(p.pid);
          grew = true;
        }
      }
    }
    for (const p of all) {
      if (!inTree.has(p.pid) || p.pid === rootPid) continue;
      // An exited child waiting to be reaped has an empty cmdline: keep the last one seen.
      const before = seen.get(p.pid);
      if (!p.args && before) p.args = before.args;
      seen.set(p.pid, p);
    }
  };
  scan();
  const timer = setInterval(scan, everyMs);
  return {
    stop() {
      clearInterval(timer);
      scan();
      const byClass = { launcher: 0, engine: 0, plugin: 0, other: 0 };
      for (const p of seen.values()) byClass[classify(p.args)] += p.cpu;
      for (const k of Object.keys(byClass)) byClass[k] = Math.round(byClass[k] * 100) / 100;
      return byClass;
    },
  };
}

module.exports = { sampleTree };
