"use strict";
/**
 * Self time of a V8 .cpuprofile grouped by package (or node internals / our code) and by
 * function; and "attributed": time in Node internals and native code charged to the nearest
 * calling package (so the HTTP/2 work done for gRPC counts as @grpc/grpc-js, the sockets of a
 * POST as undici).
 */
const fs = require("node:fs");

function bucketOf(url) {
  if (!url) return "(native/idle/gc)";
  if (url.startsWith("node:")) return "node:internal";
  const nm = url.lastIndexOf("node_modules/");
  if (nm >= 0) {
    const rest = url.slice(nm + 13).split("/");
    return rest[0].startsWith("@") ? `${rest[0]}/${rest[1]}` : rest[0];
  }
  return url.replace(/^file:\/\//, "").replace(/^.*\/work\/main\//, "");
}

function summarize(file, top = 15) {
  const prof = JSON.parse(fs.readFileSync(file, "utf8"));
  const byId = new Map(prof.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of prof.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const internal = (b) => b === "node:internal" || b === "(native/idle/gc)";
  const attributedBucket = (id) => {
    for (let q = id; q !== undefined; q = parent.get(q)) {
      const b = bucketOf(byId.get(q).callFrame.url);
      if (!internal(b)) return b;
    }
    return "node (no JS caller: event loop, GC)";
  };
  const byAttributed = new Map();
  const counts = new Map();
  for (const id of prof.samples) counts.set(id, (counts.get(id) || 0) + 1);
  const dt = prof.samples.length ? (prof.endTime - prof.startTime) / prof.samples.length / 1000 : 0; // ms per sample
  const byPkg = new Map();
  const byFn = new Map();
  let total = 0;
  for (const [id, c] of counts) {
    const n = byId.get(id);
    const fn = n.callFrame.functionName || "(anonymous)";
    if (fn === "(idle)" || fn === "(program)") continue;
    const ms = c * dt;
    total += ms;
    const pkg = bucketOf(n.callFrame.url);
    byPkg.set(pkg, (byPkg.get(pkg) || 0) + ms);
    const att = attributedBucket(id);
    byAttributed.set(att, (byAttributed.get(att) || 0) + ms);
    const key = `${fn} ${pkg}:${n.callFrame.lineNumber + 1}`;
    byFn.set(key, (byFn.get(key) || 0) + ms);
  }
  const sort = (m) => [...m.entries()].sort((a, b) => b[1] - a[1]).slice(0, top).map(([k, v]) => [k, Math.round(v)]);
  return { file, busyMs: Math.round(total), byPackage: sort(byPkg), byPackageAttributed: sort(byAttributed), byFunction: sort(byFn) };
}

module.exports = { summarize };
if (require.main === module) {
  for (const f of process.argv.slice(2)) console.log(JSON.stringify(summarize(f), null, 1));
}
