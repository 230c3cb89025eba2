"use strict";
/**
 * `NODE_OPTIONS=--require bench/lib/cpu-profile-hook.js` with BENCH_CPU_PROFILE_DIR set: every
 * Node process of a pulumi command (the launcher with the program, the dynamic-provider
 * plugin) writes a V8 CPU profile there when it ends. (--cpu-prof itself is refused in
 * NODE_OPTIONS, and the engine ends the plugin with a signal, which --cpu-prof would not survive.)
 * With BENCH_CPU_PROFILE_FROM=SIGUSR2 profiling starts only when the process gets SIGUSR2, so a
 * profile can leave out start-up and cover a steady state.
 */
const dir = process.env.BENCH_CPU_PROFILE_DIR;
if (dir) {
  const inspector = require("node:inspector");
  const fs = require("node:fs");
  const path = require("node:path");
  const session = new inspector.Session();
  session.connect();
  session.post("Profiler.enable");
  session.post("Profiler.setSamplingInterval", { interval: 500 });
  let started = false;
  const start = () => {
    if (started) return;
    started = true;
    session.post("Profiler.start");
  };
  if (process.env.BENCH_CPU_PROFILE_FROM === "SIGUSR2") process.on("SIGUSR2", start);
  else start();
  let written = false;
  const write = () => {
    if (written || !started) return;
    written = true;
    session.post("Profiler.stop", (err, res) => {
      if (err || !res) return;
      const role = process.argv.some((a) => a.includes("dynamic-provider")) ? "plugin" : process.argv.some((a) => a.includes("pulumi-launcher")) ? "launcher" : "node";
      fs.mkdirSync(dir, { recursive: true });
      fs.writeFileSync(path.join(dir, `${role}-${process.pid}.cpuprofile`), JSON.stringify(res.profile));
    });
  };
  process.on("exit", write);
  for (const sig of ["SIGINT", "SIGTERM"]) {
    process.on(sig, () => {
      write();
      process.exit(130);
    });
  }
}
