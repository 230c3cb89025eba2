"use strict";
/**
 * Turns bench.js's raw results into bench/results/bench.json (raw + summary), bench.md (the
 * table, each figure with the command that produced it), bench.svg (hand-written SVG, no
 * plotting dependency) and the generated part of bench/README.md.
 */
const fs = require("node:fs");
const path = require("node:path");
const { median, round, pairedRatios, min, max } = require("./stats");

const TARGETS = {
  overhead: 1.05,
  upVsFloor: 1.1,
  providerBytes: 1024,
  beyondCredentialsBytes: 2048,
  growth: 2.1,
};

function summarize(res) {
  const s = { targets: TARGETS };
  const { n, parallel, latencyMs, sizes } = res.settings;

  // 1. provider overhead
  const po = res.providerOverhead;
  if (po) {
    const col = (who, key, i) => po.pairs.map((p) => p[who][key][i]);
    const win = (who, which) => po.pairs.map((p) => p[who].apiWindows?.[which]?.windowMs);
    s.overhead = {
      n,
      parallel,
      idealMs: Math.ceil(n / parallel) * latencyMs,
      cold: {
        floorMs: median(col("floor", "batchesMs", 0)),
        pluginMs: median(col("plugin", "batchesMs", 0)),
        ratio: median(pairedRatios(col("plugin", "batchesMs", 0), col("floor", "batchesMs", 0))),
      },
      warm: {
        floorMs: median(col("floor", "batchesMs", 1)),
        pluginMs: median(col("plugin", "batchesMs", 1)),
        ratio: median(pairedRatios(col("plugin", "batchesMs", 1), col("floor", "batchesMs", 1))),
      },
      serverWindowCold: {
        floorMs: median(win("floor", "cold")),
        pluginMs: median(win("plugin", "cold")),
        ratio: median(pairedRatios(win("plugin", "cold"), win("floor", "cold"))),
      },
      cpuPerCreateMs: {
        pluginWarm: round(median(col("plugin", "batchesCpuMs", 1)) / n, 3),
        floorWarm: round(median(col("floor", "batchesCpuMs", 1)) / n, 3),
        pluginCold: round(median(col("plugin", "batchesCpuMs", 0)) / n, 3),
        floorCold: round(median(col("floor", "batchesCpuMs", 0)) / n, 3),
      },
      pluginStartMs: median(po.pairs.map((p) => p.plugin.pluginStartMs)),
      pairs: po.pairs.length,
      commands: po.commands,
    };
    if (po.profile) {
      const per = (ms) => round(ms / po.profile.creates, 3);
      s.overhead.profile = {
        creates: po.profile.creates,
        busyMsPerCreate: per(po.profile.busyMs),
        byPackageMsPerCreate: (po.profile.byPackageAttributed ?? po.profile.byPackage).map(([k, ms]) => [k, per(ms)]),
      };
    }
  }

  // 2. engine scale
  const runs = (res.runs ?? []).filter((r) => !r.env);
  const ok = (v, size) => runs.filter((r) => r.variant === v && r.size === size && r.ok);
  const byRound = (v, size, key) => {
    const m = new Map(ok(v, size).map((r) => [r.round, typeof key === "function" ? key(r) : r[key]]));
    return m;
  };
  const paired = (a, b, size, key) => {
    const A = byRound(a, size, key);
    const B = byRound(b, size, key);
    const rounds = [...A.keys()].filter((k) => B.has(k));
    return median(pairedRatios(rounds.map((k) => A.get(k)), rounds.map((k) => B.get(k))));
  };
  const med = (v, size, key) => median(ok(v, size).map((r) => (typeof key === "function" ? key(r) : r[key])));
  const cpuMed = (v, size, cls) => round(med(v, size, (r) => r.cpu?.[cls]), 2);
  s.scale = sizes.map((size) => ({
    size,
    oursMs: med("ours", size, "upMs"),
    floorMs: med("floor", size, "upMs"),
    oursRange: [min(ok("ours", size).map((r) => r.upMs)), max(ok("ours", size).map((r) => r.upMs))],
    floorRange: [min(ok("floor", size).map((r) => r.upMs)), max(ok("floor", size).map((r) => r.upMs))],
    ratio: paired("ours", "floor", size, "upMs"),
    runs: ok("ours", size).length,
    createWindowMs: med("ours", size, (r) => r.apiWindow?.windowMs),
    cpu: Object.fromEntries(
      ["ours", "floor"].map((v) => [v, Object.fromEntries(["engine", "launcher", "plugin", "other", "benchProcess"].map((c) => [c, cpuMed(v, size, c)]))]),
    ),
    stateBytes: { ours: med("ours", size, (r) => r.state?.fileBytes), floor: med("floor", size, (r) => r.state?.fileBytes) },
  }));
  const at = (size) => s.scale.find((x) => x.size === size);
  const big = sizes[sizes.length - 1];
  const prev = sizes[sizes.length - 2];
  if (prev !== undefined) {
    // Per round (the two sizes measured in the same round, minutes apart), then the median.
    const growth = (v, key) => {
      const A = byRound(v, big, key);
      const B = byRound(v, prev, key);
      const rounds = [...A.keys()].filter((k) => B.has(k));
      return round(median(pairedRatios(rounds.map((k) => A.get(k)), rounds.map((k) => B.get(k)))), 2);
    };
    s.growth = {
      from: prev,
      to: big,
      ours: growth("ours", "upMs"),
      floor: growth("floor", "upMs"),
      oursEngineCpu: growth("ours", (r) => r.cpu?.engine),
      floorEngineCpu: growth("floor", (r) => r.cpu?.engine),
    };
  }
  // in-up create window vs the floor client's (server side, same n and concurrency)
  if (s.overhead && sizes.includes(n)) {
    s.overhead.inUp = {
      createWindowMs: at(n).createWindowMs,
      floorWindowMs: s.overhead.serverWindowCold.floorMs,
      ratio: round(at(n).createWindowMs / s.overhead.serverWindowCold.floorMs, 2),
    };
  }

  // 3. state
  const stateOf = (v, size) => ok(v, size)[0]?.state;
  const oursBig = stateOf("ours", big);
  if (oursBig) {
    const p = oursBig.perResource;
    const delta = (v) =>
      prev === undefined ? undefined : round((med(v, big, (r) => r.state.fileBytes) - med(v, prev, (r) => r.state.fileBytes)) / (big - prev), 0);
    s.state = {
      size: big,
      perUserDelta: { ours: delta("ours"), floor: delta("floor"), from: prev, to: big },
      perUser: round(p.total, 0),
      breakdown: Object.fromEntries(Object.entries(p).map(([k, v]) => [k, round(v, 0)])),
      beyondCredentials: round(p.total - p.credentials, 0),
      secretValues: p.secretValues,
      floorSecretValues: stateOf("floor", big)?.perResource.secretValues,
      engineBookkeeping: round(p.engine, 0),
      floorPerResource: round(stateOf("floor", big)?.perResource.total, 0),
      providerBytes: oursBig.providerBytes,
      providerCopies: oursBig.providerCopies,
      providerInState: round(p.provider, 0),
      fieldBytes: oursBig.fieldBytes,
      outputKeys: oursBig.outputKeys,
    };
    const nc = (v, which, key) => median(ok(v, big).map((r) => r[which]?.[key]));
    const ncPaired = (which) => paired("ours", "floor", big, (r) => r[which]?.ms);
    s.noChange = {
      size: big,
      preview: { oursMs: nc("ours", "noChangePreview", "ms"), floorMs: nc("floor", "noChangePreview", "ms"), ratio: ncPaired("noChangePreview") },
      up: { oursMs: nc("ours", "noChangeUp", "ms"), floorMs: nc("floor", "noChangeUp", "ms"), ratio: ncPaired("noChangeUp") },
      cpu: Object.fromEntries(
        ["ours", "floor"].flatMap((v) =>
          ["noChangePreview", "noChangeUp"].map((w) => [
            `${v}.${w}`,
            Object.fromEntries(["engine", "launcher", "plugin", "other"].map((c) => [c, round(median(ok(v, big).map((r) => r[w]?.cpu?.[c])), 2)])),
          ]),
        ),
      ),
    };
  }

  // 4. peers at n
  const peerRow = (v) => {
    const rs = ok(v, n);
    if (!rs.length) return undefined;
    const st = rs[0].state;
    return {
      variant: v,
      upMs: med(v, n, "upMs"),
      ratioToOurs: paired(v, "ours", n, "upMs"),
      perUserBytes: round(st.perResource.total, 0),
      secretValues: st.perResource.secretValues,
      providerBytes: st.providerBytes,
      credentialsInPlaintext: rs.some((r) => r.secrets?.foundInPlaintext > 0),
      credentialValuesChecked: rs[0].secrets?.checked,
      credentialValuesFound: rs[0].secrets?.foundInPlaintext,
      tokenInPlaintext: rs.some((r) => r.secrets?.tokenInPlaintext),
      runs: rs.length,
    };
  };
  s.peers = { n, rows: ["ours", "peerUndici", "peerCommand"].map(peerRow).filter(Boolean) };
  const failedPeers = (res.runs ?? []).filter((r) => r.variant.startsWith("peer") && !r.ok);
  if (failedPeers.length) s.peers.failures = failedPeers.map((r) => ({ variant: r.variant, error: r.error }));
  s.peers.command = res.commandPeer;

  // 5. diagnostics
  const d = res.diagnostics ?? {};
  if (d.skipCheckpoints?.length) {
    const sc = d.skipCheckpoints.filter((r) => r.ok);
    const A = new Map(sc.filter((r) => r.variant === "ours").map((r) => [r.round, r.upMs]));
    const B = new Map(sc.filter((r) => r.variant === "floor").map((r) => [r.round, r.upMs]));
    const rounds = [...A.keys()].filter((k) => B.has(k));
    s.skipCheckpoints = {
      n,
      oursMs: median([...A.values()]),
      floorMs: median([...B.values()]),
      ratio: median(pairedRatios(rounds.map((k) => A.get(k)), rounds.map((k) => B.get(k)))),
      pairs: rounds.length,
      cpu: Object.fromEntries(
        ["ours", "floor"].map((v) => [v, Object.fromEntries(["engine", "launcher", "plugin"].map((c) => [c, round(median(sc.filter((r) => r.variant === v).map((r) => r.cpu?.[c])), 2)]))]),
      ),
    };
  }
  if (d.profiles) s.profiles = d.profiles;
  return s;
}

// ---------------------------------------------------------------------------------------------

const sec = (ms) => (ms === undefined ? "–" : `${(ms / 1000).toFixed(2)} s`);
const x = (r) => (r === undefined || r === null || Number.isNaN(r) ? "–" : `${r.toFixed(2)}×`);
const kb = (b) => (b === undefined ? "–" : b >= 1024 * 1024 ? `${(b / 1024 / 1024).toFixed(2)} MiB` : b >= 10 * 1024 ? `${(b / 1024).toFixed(0)} KiB` : `${b} B`);
const verdict = (okay) => (okay === undefined ? "–" : okay ? "**met**" : "**missed**");

function table(s, res) {
  const { n, parallel, latencyMs } = res.settings;
  const rows = [];
  const add = (figure, ours, ref, ratio, target, met, command) => rows.push([figure, ours, ref, ratio, target, verdict(met), command]);
  const up = (size, extra = "") => `\`${extra}pulumi up --yes --non-interactive --skip-preview --parallel ${parallel}\` of bench/programs/storage-users vs bench/programs/noop-users, \`psu-bench:count=${size}\``;
  const o = s.overhead;
  if (o) {
    add(
      `1. ${n} creates through the dynamic-provider plugin (fresh plugin, Check+Create over gRPC) vs ${n} undici POSTs, concurrency ${parallel}`,
      sec(o.cold.pluginMs),
      sec(o.cold.floorMs),
      x(o.cold.ratio),
      `≤ ${TARGETS.overhead}×`,
      o.cold.ratio <= TARGETS.overhead,
      `\`node bench/lib/plugin-driver.js\` vs \`node bench/lib/floor-client.js <url> <token> <prefix> ${n} ${parallel} 2\` (batch 1)`,
    );
    add(
      `1. dynamic-provider plugin start, spawn to listening (the SDK loading itself; once per \`pulumi up\`, outside the ratio above)`,
      sec(o.pluginStartMs),
      "",
      "",
      "",
      undefined,
      "same command",
    );
    add(`1. same, second batch on the warm plugin / warm client`, sec(o.warm.pluginMs), sec(o.warm.floorMs), x(o.warm.ratio), `≤ ${TARGETS.overhead}×`, o.warm.ratio <= TARGETS.overhead, "same commands, batch 2");
    add(
      `1. CPU per create, warm: plugin process vs undici client process`,
      `${o.cpuPerCreateMs.pluginWarm} ms`,
      `${o.cpuPerCreateMs.floorWarm} ms`,
      x(o.cpuPerCreateMs.pluginWarm / o.cpuPerCreateMs.floorWarm),
      "",
      undefined,
      "same commands, /proc CPU time of each process",
    );
    if (o.inUp)
      add(
        `1. inside a real \`pulumi up\` of ${n}: first POST to last answer at the API vs the same window for the undici client`,
        sec(o.inUp.createWindowMs),
        sec(o.inUp.floorWindowMs),
        x(o.inUp.ratio),
        `≤ ${TARGETS.overhead}×`,
        o.inUp.ratio <= TARGETS.overhead,
        up(n),
      );
  }
  for (const r of s.scale) add(`2. \`pulumi up\` of ${r.size}: StorageUser vs no-op dynamic resource (engine floor)`, sec(r.oursMs), sec(r.floorMs), x(r.ratio), `≤ ${TARGETS.upVsFloor}×`, r.ratio <= TARGETS.upVsFloor, up(r.size));
  if (s.growth) {
    add(
      `2. growth up(${s.growth.to}) / up(${s.growth.from}), StorageUser (median of per-round ratios)`,
      x(s.growth.ours),
      `floor: ${x(s.growth.floor)}; engine CPU grows ${x(s.growth.oursEngineCpu)} (ours) and ${x(s.growth.floorEngineCpu)} (floor)`,
      "",
      `≤ ${TARGETS.growth}×`,
      s.growth.ours <= TARGETS.growth,
      up(`${s.growth.from} and ${s.growth.to}`),
    );
  }
  if (s.state) {
    const st = s.state;
    add(`3. \`__provider\` in state (one copy; ${st.providerCopies} copies per user)`, `${st.providerBytes} B`, "", "", `≤ 1 KB`, st.providerBytes <= TARGETS.providerBytes, "raw state file after " + up(st.size));
    if (st.perUserDelta.ours !== undefined)
      add(
        `3. state bytes per user, (bytes(${st.perUserDelta.to}) − bytes(${st.perUserDelta.from})) / ${st.perUserDelta.to - st.perUserDelta.from}`,
        `${st.perUserDelta.ours} B`,
        `floor: ${st.perUserDelta.floor} B`,
        "",
        "",
        undefined,
        "raw state files after " + up(`${st.perUserDelta.from} and ${st.perUserDelta.to}`),
      );
    add(
      `3. state per user beyond its own credentials (the one secret \`credentials\` output, ciphertext: ${st.breakdown.credentials} B); per resource of the stack of ${st.size}: ${st.perUser} B in all`,
      `${st.beyondCredentials} B`,
      `of which engine bookkeeping ${st.engineBookkeeping} B (${Math.round((100 * st.engineBookkeeping) / st.beyondCredentials)}%), \`__provider\` ${st.providerInState} B, other outputs ${st.breakdown.otherOutputs} B, inputs ${st.breakdown.otherInputs} B`,
      "",
      "≤ 2 KB",
      st.beyondCredentials <= TARGETS.beyondCredentialsBytes,
      "raw state file after " + up(st.size),
    );
    add(
      `3. secret values per user in state (each one re-marshalled by every checkpoint)`,
      String(st.secretValues),
      `floor: ${st.floorSecretValues}; outputs stored: ${st.outputKeys.join(", ")}`,
      "",
      "",
      undefined,
      "raw state file after " + up(st.size),
    );
    const nc = s.noChange;
    add(`3. no-change \`pulumi preview\` at ${nc.size}`, sec(nc.preview.oursMs), sec(nc.preview.floorMs), x(nc.preview.ratio), "", undefined, `\`pulumi preview --non-interactive\` on the stacks of ${nc.size}`);
    add(`3. no-change \`pulumi up\` at ${nc.size}`, sec(nc.up.oursMs), sec(nc.up.floorMs), x(nc.up.ratio), "", undefined, `\`pulumi up --yes --non-interactive --skip-preview --parallel ${parallel}\` again on the stacks of ${nc.size}`);
  }
  const ours = s.peers.rows.find((r) => r.variant === "ours");
  for (const p of s.peers.rows.filter((r) => r.variant !== "ours")) {
    const label = res.variantLabels?.[p.variant] ?? p.variant;
    add(`4. ${label}: \`pulumi up\` of ${n}`, sec(ours?.upMs), sec(p.upMs), `peer/ours ${x(p.ratioToOurs)}`, "ours faster", ours && p.upMs > ours.upMs, `\`pulumi up ... --parallel ${parallel}\` of bench/programs/${p.variant === "peerUndici" ? "peer-undici" : "peer-command"}`);
    add(
      `4. ${label}: state per user (and its \`__provider\`, stored twice)`,
      `${ours?.perUserBytes} B (${ours?.providerBytes} B)`,
      `${p.perUserBytes} B (${p.providerBytes} B${p.variant === "peerUndici" ? ": serialization works, undici captured as `require(\"undici/index.js\")`" : ""})`,
      "",
      "ours smaller",
      ours && p.perUserBytes > ours.perUserBytes,
      "raw state file",
    );
    add(
      `4. ${label}: credentials kept secret in state`,
      `${ours?.credentialsInPlaintext ? "no" : "yes"}; API token ${ours?.tokenInPlaintext ? "in plaintext" : "not in plaintext"}; ${ours?.secretValues} secret value(s) per user`,
      `${p.credentialsInPlaintext ? `no: ${p.credentialValuesFound}/${p.credentialValuesChecked} real credential values found in plaintext` : "yes"}; API token ${p.tokenInPlaintext ? "in plaintext" : "not in plaintext"}; ${p.secretValues} secret value(s) per user`,
      "",
      "",
      undefined,
      "raw state file searched for the API's real Password/SecretKey values",
    );
  }
  if (!s.peers.rows.some((r) => r.variant === "peerCommand")) {
    const c = s.peers.command;
    add(`4. peer (b) @pulumi/command local.Command + curl`, "", "not measured: plugin could not be built", "", "", undefined, `\`${c.command}\` exit ${c.exitCode}: ${String(c.output).split("\n").slice(-1)[0].replace(/\|/g, "\\|")}`);
  }
  if (s.skipCheckpoints)
    add(
      `5. diagnosis: \`pulumi up\` of ${s.skipCheckpoints.n} with PULUMI_SKIP_CHECKPOINTS=true (state written once, not per step)`,
      sec(s.skipCheckpoints.oursMs),
      sec(s.skipCheckpoints.floorMs),
      x(s.skipCheckpoints.ratio),
      "",
      undefined,
      up(s.skipCheckpoints.n, "PULUMI_SKIP_CHECKPOINTS=true "),
    );
  const head = ["Figure", "StorageUser", "Compared with", "Ratio", "Target", "", "Command"];
  return [head, head.map(() => "---"), ...rows].map((r) => `| ${r.map((c) => String(c ?? "").replace(/\n/g, " ")).join(" | ")} |`).join("\n");
}

function cpuTable(s) {
  const lines = ["| Run | engine (Go) | program + language host | dynamic-provider plugin | API server + bench |", "| --- | --- | --- | --- | --- |"];
  for (const r of s.scale) {
    for (const v of ["ours", "floor"]) {
      const c = r.cpu[v];
      lines.push(`| \`up\` of ${r.size}, ${v === "ours" ? "StorageUser" : "floor"} | ${c.engine} s | ${c.launcher} s | ${c.plugin} s | ${c.benchProcess} s |`);
    }
  }
  if (s.noChange) {
    for (const [k, c] of Object.entries(s.noChange.cpu)) {
      const [v, w] = k.split(".");
      lines.push(`| no-change ${w === "noChangePreview" ? "`preview`" : "`up`"} of ${s.noChange.size}, ${v === "ours" ? "StorageUser" : "floor"} | ${c.engine} s | ${c.launcher} s | ${c.plugin} s | |`);
    }
  }
  return lines.join("\n");
}

function profileText(s, res) {
  const out = [];
  const o = s.overhead?.profile;
  if (o) {
    out.push(
      `Plugin CPU profile of ${o.creates} creates on a warm plugin (second batch, \`node bench/lib/plugin-driver.js\`): ${o.busyMsPerCreate} ms busy per create; by package (Node internals charged to the calling package), ms per create: ` +
        o.byPackageMsPerCreate
          .slice(0, 8)
          .map(([k, v]) => `${k} ${v}`)
          .join(", ") +
        ".",
    );
  }
  for (const [v, p] of Object.entries(s.profiles ?? {})) {
    const who = res.variantLabels?.[v] ?? v;
    if (p.engine && !p.engine.error)
      out.push(
        `Engine pprof, \`up\` of ${res.settings.n} ${who}: ${p.engine.totalCpuS} s CPU sampled, of which ${p.engine.saveSnapshotS} s in SnapshotManager.saveSnapshot (checkpoint after every step: serialize the whole deployment ${p.engine.serializeDeploymentS} s, JSON ${p.engine.jsonMarshalS} s, MD5 of the file ${p.engine.md5S} s).`,
      );
    if (p.launcher)
      out.push(
        `Program + language host CPU profile, \`up\` of ${res.settings.n} ${who}: ${p.launcher.busyMs} ms busy; by package: ${(p.launcher.byPackageAttributed ?? p.launcher.byPackage)
          .slice(0, 5)
          .map(([k, ms]) => `${k} ${ms} ms`)
          .join(", ")}; top functions: ${p.launcher.byFunction.slice(0, 4).map(([k, ms]) => `${k} ${ms} ms`).join("; ")}.`,
      );
    if (p.plugin)
      out.push(
        `Plugin CPU profile, \`up\` of ${res.settings.n} ${who} (start-up included): ${p.plugin.busyMs} ms busy; by package: ${(p.plugin.byPackageAttributed ?? p.plugin.byPackage)
          .slice(0, 6)
          .map(([k, ms]) => `${k} ${ms} ms`)
          .join(", ")}.`,
      );
  }
  return out.map((l) => `- ${l}`).join("\n");
}

// ---------------------------------------------------------------------------------------------

function svg(s, res) {
  const W = 1060;
  const H = 470;
  const esc = (t) => String(t).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
  const el = [];
  el.push(`<rect width="${W}" height="${H}" fill="#fff"/>`);
  const font = `font-family="DejaVu Sans, Arial, sans-serif"`;
  // Left panel: up time vs size
  const L = { x: 60, y: 50, w: 420, h: 330 };
  const sizes = s.scale.map((r) => r.size);
  const peerPts = s.peers.rows.filter((r) => r.variant !== "ours").map((r) => ({ size: s.peers.n, ms: r.upMs, v: r.variant }));
  const yMax = Math.max(...s.scale.flatMap((r) => [r.oursRange[1] ?? 0, r.floorRange[1] ?? 0]), ...peerPts.map((p) => p.ms ?? 0)) / 1000;
  const yStep = niceStep(yMax / 5);
  const yTop = Math.ceil(yMax / yStep) * yStep;
  const yTicks = Math.round(yTop / yStep);
  const xMax = Math.max(...sizes);
  const px = (size) => L.x + (size / xMax) * L.w;
  const py = (ms) => L.y + L.h - (ms / 1000 / yTop) * L.h;
  el.push(`<text x="${L.x}" y="30" ${font} font-size="14" font-weight="bold">pulumi up --parallel ${res.settings.parallel}: median seconds (whiskers: min–max)</text>`);
  el.push(`<text x="${L.x - 45}" y="${L.y + L.h / 2}" ${font} font-size="12" text-anchor="middle" transform="rotate(-90 ${L.x - 45} ${L.y + L.h / 2})">seconds</text>`);
  for (let i = 0; i <= yTicks; i++) {
    const v = yStep * i;
    const y = py(v * 1000);
    el.push(`<line x1="${L.x}" y1="${y}" x2="${L.x + L.w}" y2="${y}" stroke="#e5e5e5"/>`);
    el.push(`<text x="${L.x - 8}" y="${y + 4}" ${font} font-size="11" text-anchor="end">${round(v, 1)}</text>`);
  }
  for (const size of sizes) {
    el.push(`<text x="${px(size)}" y="${L.y + L.h + 16}" ${font} font-size="11" text-anchor="middle">${size}</text>`);
  }
  el.push(`<text x="${L.x + L.w / 2}" y="${L.y + L.h + 34}" ${font} font-size="12" text-anchor="middle">resources in the stack</text>`);
  el.push(`<line x1="${L.x}" y1="${L.y + L.h}" x2="${L.x + L.w}" y2="${L.y + L.h}" stroke="#333"/><line x1="${L.x}" y1="${L.y}" x2="${L.x}" y2="${L.y + L.h}" stroke="#333"/>`);
  const series = [
    { key: "ours", range: "oursRange", color: "#1f6fd1", label: "StorageUser" },
    { key: "floor", range: "floorRange", color: "#777", label: "engine floor (no-op dynamic resource)" },
  ];
  for (const ser of series) {
    const pts = s.scale.filter((r) => r[`${ser.key}Ms`] !== undefined).map((r) => `${px(r.size)},${py(r[`${ser.key}Ms`])}`);
    el.push(`<polyline points="${pts.join(" ")}" fill="none" stroke="${ser.color}" stroke-width="2"/>`);
    for (const r of s.scale) {
      if (r[`${ser.key}Ms`] === undefined) continue;
      const [lo, hi] = r[ser.range];
      el.push(`<line x1="${px(r.size)}" y1="${py(lo)}" x2="${px(r.size)}" y2="${py(hi)}" stroke="${ser.color}" stroke-width="1"/>`);
      el.push(`<circle cx="${px(r.size)}" cy="${py(r[`${ser.key}Ms`])}" r="3.5" fill="${ser.color}"/>`);
      if (ser.key === "ours" && r.ratio !== undefined)
        el.push(`<text x="${px(r.size) - 6}" y="${py(r.oursMs) - 8}" ${font} font-size="10" text-anchor="end" fill="${ser.color}">${r.ratio.toFixed(2)}×</text>`);
    }
  }
  const peerColors = { peerUndici: "#e07b00", peerCommand: "#8a3ab9" };
  for (const p of peerPts) {
    if (p.ms === undefined) continue;
    el.push(`<rect x="${px(p.size) - 4}" y="${py(p.ms) - 4}" width="8" height="8" fill="${peerColors[p.v]}"/>`);
  }
  let ly = L.y + 6;
  for (const ser of series) {
    el.push(`<line x1="${L.x + 10}" y1="${ly}" x2="${L.x + 28}" y2="${ly}" stroke="${ser.color}" stroke-width="2"/><text x="${L.x + 34}" y="${ly + 4}" ${font} font-size="11">${esc(ser.label)}</text>`);
    ly += 16;
  }
  for (const p of peerPts) {
    el.push(`<rect x="${L.x + 15}" y="${ly - 4}" width="8" height="8" fill="${peerColors[p.v]}"/><text x="${L.x + 34}" y="${ly + 4}" ${font} font-size="11">${esc(res.variantLabels?.[p.v] ?? p.v)}</text>`);
    ly += 16;
  }

  // Right panel: ratios against targets
  const R = { x: 760, y: 50, w: 250 };
  const bars = [];
  const o = s.overhead;
  if (o) {
    bars.push({ label: `plugin vs undici, ${o.n} creates (fresh)`, v: o.cold.ratio, t: TARGETS.overhead });
    bars.push({ label: `plugin vs undici (warm)`, v: o.warm.ratio, t: TARGETS.overhead });
    if (o.inUp) bars.push({ label: `create window in a real up`, v: o.inUp.ratio, t: TARGETS.overhead });
  }
  for (const r of s.scale) bars.push({ label: `up of ${r.size} vs floor`, v: r.ratio, t: TARGETS.upVsFloor });
  if (s.growth) {
    bars.push({ label: `growth ${s.growth.from}→${s.growth.to}, StorageUser`, v: s.growth.ours, t: TARGETS.growth });
    bars.push({ label: `growth ${s.growth.from}→${s.growth.to}, floor`, v: s.growth.floor, t: TARGETS.growth, ref: true });
  }
  if (s.noChange) {
    bars.push({ label: `no-change preview of ${s.noChange.size}`, v: s.noChange.preview.ratio });
    bars.push({ label: `no-change up of ${s.noChange.size}`, v: s.noChange.up.ratio });
  }
  for (const p of s.peers.rows.filter((r) => r.variant !== "ours")) bars.push({ label: `${p.variant === "peerUndici" ? "peer (a)" : "peer (b)"} time / ours`, v: p.ratioToOurs, t: 1, above: true });
  if (s.skipCheckpoints) bars.push({ label: `up of ${s.skipCheckpoints.n}, checkpoints off`, v: s.skipCheckpoints.ratio, t: TARGETS.upVsFloor });
  // The axis stops at 3.5×: a larger ratio runs to the edge, broken, with its value written.
  const vMax = Math.min(3.5, niceCeil(Math.max(2.2, ...bars.map((b) => b.v ?? 0))));
  const bx = (v) => R.x + (v / vMax) * R.w;
  const bh = 14;
  const gap = 8;
  el.push(`<text x="${R.x - 200}" y="30" ${font} font-size="14" font-weight="bold">ratios (bars) against targets (black ticks)</text>`);
  bars.forEach((b, i) => {
    const y = R.y + i * (bh + gap);
    el.push(`<text x="${R.x - 6}" y="${y + bh - 3}" ${font} font-size="11" text-anchor="end">${esc(b.label)}</text>`);
    if (b.v === undefined) return;
    const met = b.t === undefined ? undefined : b.above ? b.v >= b.t : b.v <= b.t;
    const color = b.ref ? "#bbb" : met === undefined ? "#9ab" : met ? "#2e9d4f" : "#d0453b";
    const shown = Math.min(b.v, vMax);
    el.push(`<rect x="${R.x}" y="${y}" width="${Math.max(1, bx(shown) - R.x)}" height="${bh}" fill="${color}"/>`);
    if (b.v > vMax) el.push(`<path d="M${bx(shown) - 10},${y - 1} l5,${bh + 2} M${bx(shown) - 5},${y - 1} l5,${bh + 2}" stroke="#fff" stroke-width="2"/>`);
    el.push(`<text x="${bx(shown) + 4}" y="${y + bh - 3}" ${font} font-size="10">${b.v.toFixed(2)}×</text>`);
    if (b.t !== undefined) el.push(`<line x1="${bx(b.t)}" y1="${y - 2}" x2="${bx(b.t)}" y2="${y + bh + 2}" stroke="#000" stroke-width="2"/>`);
  });
  const axisY = R.y + bars.length * (bh + gap);
  el.push(`<line x1="${R.x}" y1="${R.y - 4}" x2="${R.x}" y2="${axisY}" stroke="#333"/>`);
  for (let v = 0; v <= vMax + 1e-9; v += vMax <= 3 ? 0.5 : vMax <= 6 ? 1 : 2) {
    el.push(`<text x="${bx(v)}" y="${axisY + 14}" ${font} font-size="10" text-anchor="middle">${round(v, 1)}×</text>`);
  }
  el.push(`<text x="${R.x + R.w / 2}" y="${axisY + 30}" ${font} font-size="10" text-anchor="middle" fill="#555">green: target met · red: missed · grey: no target</text>`);

  const m = res.machine;
  const foot1 = `npm run bench${res.settings.quick ? " (BENCH_QUICK=1)" : ""} · ${res.finishedAt?.slice(0, 16).replace("T", " ")} UTC · commit ${m.gitCommit ?? "?"} · ${res.settings.latencyMs} ms injected API latency · medians of ${res.settings.repeats} interleaved round(s)`;
  const foot2 = `nproc ${m.nproc}, ${m.memoryGiB} GiB, node ${m.node}, pulumi ${m.pulumi} · load average ${m.loadAverageAtStart?.[0]} at start, ${m.loadAverageAtEnd?.[0]} at end: shared machine, compare ratios, not absolute times`;
  el.push(`<text x="20" y="${H - 28}" ${font} font-size="11" fill="#333">${esc(foot1)}</text>`);
  el.push(`<text x="20" y="${H - 12}" ${font} font-size="11" fill="#333">${esc(foot2)}</text>`);
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}">\n${el.join("\n")}\n</svg>\n`;
}

function niceStep(v) {
  if (!(v > 0)) return 1;
  const p = 10 ** Math.floor(Math.log10(v));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * p >= v) return m * p;
  return 10 * p;
}

function niceCeil(v) {
  if (!(v > 0)) return 1;
  const p = 10 ** Math.floor(Math.log10(v));
  for (const m of [1, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10]) if (m * p >= v) return m * p;
  return 10 * p;
}

// ---------------------------------------------------------------------------------------------

function markdown(s, res) {
  const m = res.machine;
  const st = res.settings;
  const env = [
    st.quick ? "BENCH_QUICK=1" : "",
    `BENCH_SIZES=${st.sizes.join(",")}`,
    `BENCH_N=${st.n}`,
    `BENCH_REPEATS=${st.repeats}`,
    `BENCH_PLUGIN_REPEATS=${st.pluginRepeats}`,
    `BENCH_PARALLEL=${st.parallel}`,
    `BENCH_LATENCY_MS=${st.latencyMs}`,
  ]
    .filter(Boolean)
    .join(" ");
  return [
    `Run of ${res.finishedAt?.slice(0, 16).replace("T", " ")} UTC, commit \`${m.gitCommit ?? "?"}\`, ${res.durationS} s in all.`,
    "",
    `Command: \`npm run bench\` (\`npm run build && bash bench/run.sh\`), settings \`${env}\`.`,
    `Machine: nproc ${m.nproc} (${m.cpuModel}), ${m.memoryGiB} GiB memory, Linux ${m.kernel}, node ${m.node}, pulumi CLI ${m.pulumi} (SDK ${m.pulumiSdk}), undici ${m.undici}, ${m.go ?? "no go"}; load average ${m.loadAverageAtStart?.join(" / ")} at start, ${m.loadAverageAtEnd?.join(" / ")} at the end.`,
    "",
    "**The machine is shared (2 cores, other engineers' test suites run at the same time): read the ratios of interleaved pairs, not the absolute times.** Every ratio is the median of per-pair ratios, each pair measured back to back (the order alternating between rounds).",
    "",
    table(s, res),
    "",
    "![bench plot](results/bench.svg)",
    "",
    "CPU seconds per process during each run (median), sampled from /proc:",
    "",
    cpuTable(s),
    "",
    profileText(s, res),
  ].join("\n");
}

function writeReport(res, resultsDir, readmePath) {
  res.variantLabels = {
    ours: "StorageUser",
    floor: "engine floor",
    peerUndici: "peer (a) docs-style dynamic provider + undici",
    peerCommand: "peer (b) @pulumi/command + curl",
  };
  const summary = summarize(res);
  const files = [];
  const json = path.join(resultsDir, "bench.json");
  fs.writeFileSync(json, JSON.stringify({ summary, raw: res }, null, 2) + "\n");
  files.push(json);
  const md = markdown(summary, res);
  const mdFile = path.join(resultsDir, "bench.md");
  fs.writeFileSync(mdFile, `# Latest bench results\n\n${md.replace("](results/bench.svg)", "](bench.svg)")}\n`);
  files.push(mdFile);
  const svgFile = path.join(resultsDir, "bench.svg");
  fs.writeFileSync(svgFile, svg(summary, res));
  files.push(svgFile);
  if (readmePath && fs.existsSync(readmePath) && path.resolve(resultsDir) === path.resolve(path.dirname(readmePath), "results")) {
    const readme = fs.readFileSync(readmePath, "utf8");
    const start = "<!-- bench:latest:start -->";
    const end = "<!-- bench:latest:end -->";
    const i = readme.indexOf(start);
    const j = readme.indexOf(end);
    if (i >= 0 && j > i) {
      fs.writeFileSync(readmePath, `${readme.slice(0, i + start.length)}\n${md}\n${readme.slice(j)}`);
      files.push(readmePath);
    }
  }
  return files;
}

module.exports = { writeReport, summarize, TARGETS };
