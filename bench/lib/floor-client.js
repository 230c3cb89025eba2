"use strict";
/**
 * The floor: `node bench/lib/floor-client.js <baseUrl> <token> <prefix> <n> <concurrency> [batches]`
 * sends n POST /storage/users straight from undici's `request`, `concurrency` at a time, and
 * prints one JSON line with the wall time and the process's CPU time of each batch. Batch 1 is cold (the timer starts
 * before `require("undici")`, as the plugin's first create pays for loading it too); later
 * batches reuse the warm module and connection pool.
 */
const t0 = performance.now();
const { request } = require("undici");

async function batch(baseUrl, token, prefix, n, concurrency) {
  let next = 0;
  let failures = 0;
  const worker = async () => {
    while (next < n) {
      const i = next++;
      const res = await request(`${baseUrl}/storage/users`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: token, accept: "application/json" },
        body: JSON.stringify({ UserName: `${prefix}-${i}`, PersistPassword: 0 }),
      });
      const user = await res.body.json();
      if (res.statusCode !== 200 || typeof user.Id !== "number") failures++;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return failures;
}

async function main() {
  const [baseUrl, token, prefix, n, concurrency, batches = "2"] = process.argv.slice(2);
  const out = { batchesMs: [], batchesCpuMs: [], failures: 0 };
  let start = t0;
  let cpu0 = { user: 0, system: 0 }; // batch 1 counts the process from its start, as the plugin's does
  for (let b = 0; b < Number(batches); b++) {
    out.failures += await batch(baseUrl, token, `${prefix}-b${b}`, Number(n), Number(concurrency));
    const end = performance.now();
    out.batchesMs.push(Math.round((end - start) * 10) / 10);
    const cpu = process.cpuUsage();
    out.batchesCpuMs.push(Math.round((cpu.user + cpu.system - cpu0.user - cpu0.system) / 100) / 10);
    cpu0 = cpu;
    start = performance.now();
  }
  process.stdout.write(JSON.stringify(out) + "\n");
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
