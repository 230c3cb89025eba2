"use strict";
/**
 * The plugin path without the engine: `node bench/lib/plugin-driver.js <json args>` starts the
 * SDK's own dynamic-provider plugin (`@pulumi/pulumi/cmd/dynamic-provider`, the process the
 * engine runs for every dynamic resource) in the program's directory, and plays the engine's
 * part over gRPC: Configure once with the stack config, then per resource Check and Create
 * with the `__provider` text taken from a real state file, `concurrency` resources at a time.
 * What is timed is exactly what the provider adds over a bare POST: gRPC + protobuf Struct
 * marshalling, the SDK deserializing `__provider`, and our check/create code.
 *
 * Prints one JSON line: pluginStartMs (spawn to port, the SDK's cost), configureMs, and per
 * batch the wall time and the plugin process's CPU time (batch 1 runs on the fresh plugin:
 * loading our runtime and undici is in it).
 */
const { spawn } = require("node:child_process");
const fs = require("node:fs");
const path = require("node:path");

async function main() {
  const args = JSON.parse(process.argv[2]);
  const { programDir, baseUrl, token, prefix, n, concurrency, batches, providerFile } = args;
  const providerText = fs.readFileSync(providerFile, "utf8");
  const sdk = path.dirname(require.resolve("@pulumi/pulumi/package.json", { paths: [programDir] }));
  const grpc = require(require.resolve("@grpc/grpc-js", { paths: [sdk] }));
  const structproto = require(require.resolve("google-protobuf/google/protobuf/struct_pb", { paths: [sdk] }));
  const provproto = require(path.join(sdk, "proto", "provider_pb"));
  const provrpc = require(path.join(sdk, "proto", "provider_grpc_pb"));

  const spawnedAt = performance.now();
  const plugin = spawn(process.execPath, [path.join(sdk, "cmd", "dynamic-provider", "index.js"), "127.0.0.1:1"], {
    cwd: programDir,
    env: { ...process.env, PULUMI_NODEJS_PROJECT: "psu-bench", PULUMI_NODEJS_STACK: "bench", ...(args.pluginEnv || {}) },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const port = await new Promise((resolve, reject) => {
    let buf = "";
    plugin.stdout.on("data", (d) => {
      buf += d;
      const m = /^(\d+)\s*$/m.exec(buf);
      if (m) resolve(Number(m[1]));
    });
    plugin.on("exit", (code) => reject(new Error(`plugin exited ${code} before printing its port`)));
  });
  const pluginStartMs = performance.now() - spawnedAt;
  const client = new provrpc.ResourceProviderClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
  const call = (method, req) => new Promise((resolve, reject) => client[method](req, (err, res) => (err ? reject(err) : resolve(res))));

  const configureStart = performance.now();
  const conf = new provproto.ConfigureRequest();
  conf.setArgs(structproto.Struct.fromJavaScript({ "storage:baseUrl": baseUrl, "storage:accessToken": token }));
  conf.setAcceptsecrets(true);
  conf.setAcceptresources(true);
  await call("configure", conf);
  const configureMs = performance.now() - configureStart;

  const type = "pulumi-nodejs:dynamic/storage:StorageUser";
  const one = async (name, userName) => {
    const urn = `urn:pulumi:bench::psu-bench::${type}::${name}`;
    const check = new provproto.CheckRequest();
    check.setUrn(urn);
    check.setName(name);
    check.setType(type);
    check.setOlds(structproto.Struct.fromJavaScript({}));
    check.setNews(structproto.Struct.fromJavaScript({ userName, __provider: providerText }));
    const checked = await call("check", check);
    if (checked.getFailuresList().length) throw new Error(`check failed: ${checked.getFailuresList().map((f) => f.getReason()).join("; ")}`);
    const create = new provproto.CreateRequest();
    create.setUrn(urn);
    create.setName(name);
    create.setType(type);
    create.setProperties(checked.getInputs());
    create.setTimeout(300);
    const created = await call("create", create);
    const outs = created.getProperties().toJavaScript();
    // StorageUser returns every credential in one output, `credentials` (marked secret by the
    // resource's additionalSecretOutputs in the engine; a plugin may also send it wrapped).
    const sig = "4dabf18193072939515e22adb298388d";
    const creds = outs.credentials?.[sig] ? outs.credentials.value : outs.credentials;
    if (!created.getId() || typeof creds?.password !== "string" || typeof creds?.s3?.secretKey !== "string")
      throw new Error(`create returned no credentials for ${userName}`);
  };

  const pluginCpuMs = () => {
    const stat = fs.readFileSync(`/proc/${plugin.pid}/stat`, "utf8");
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(f[11]) + Number(f[12])) * 10; // USER_HZ = 100
  };
  const batchesMs = [];
  const batchesCpuMs = [];
  for (let b = 0; b < batches; b++) {
    if (args.signalBeforeLastBatch && b === batches - 1) {
      plugin.kill(args.signalBeforeLastBatch);
      await new Promise((r) => setTimeout(r, 100));
    }
    const cpu0 = pluginCpuMs();
    const start = performance.now();
    let next = 0;
    const worker = async () => {
      while (next < n) {
        const i = next++;
        await one(`u${i}`, `${prefix}-b${b}-${i}`);
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
    batchesMs.push(Math.round((performance.now() - start) * 10) / 10);
    batchesCpuMs.push(pluginCpuMs() - cpu0);
  }
  client.close();
  plugin.kill("SIGTERM");
  await new Promise((resolve) => (plugin.exitCode !== null ? resolve() : plugin.on("exit", resolve)));
  process.stdout.write(JSON.stringify({ pluginStartMs: Math.round(pluginStartMs), configureMs: Math.round(configureMs * 10) / 10, batchesMs, batchesCpuMs }) + "\n");
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
