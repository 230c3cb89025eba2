// @ts-check
// The floor's create (wait the API latency, no HTTP) returning what BENCH_SHAPE says, with
// StorageUser's exact shape and sizes. Read from the plugin's environment (bench/shapes.ts sets
// it), so the closure serializer writes a one-line require, as for StorageUser.
const x = (/** @type {number} */ n) => "x".repeat(n);

/** @param {{ userName: string, persistPassword: boolean }} inputs */
exports.create = async function create(inputs) {
  const shape = process.env.BENCH_SHAPE ?? "floor";
  await new Promise((resolve) => setTimeout(resolve, Number(process.env.BENCH_LATENCY_MS ?? 50)));
  if (shape === "floor" || shape === "keys") return { id: inputs.userName, outs: inputs };
  const task = {
    id: 50000,
    progressPercent: 0,
    type: "StorageUserCreate",
    state: "New",
    startDate: "2026-11-22T00:58:07.357",
  };
  const account = {
    baseUrl: "http://127.0.0.1:41234/",
    state: "New",
    tasks: [task],
    swiftEndpoint: "https://swift.storage.test/v1",
    s3Endpoint: "https://s3.storage.test",
    ftpHostName: "ftp.storage.test",
  };
  const secrets = {
    name: inputs.userName,
    password: x(32),
    swift: { tenantId: x(32), accessKey: x(20), password: x(32) },
    s3: { accessKey: x(20), secretKey: x(40) },
    ftp: { login: x(16), password: x(32) },
  };
  const json = shape.endsWith("json");
  return {
    id: inputs.userName,
    outs: {
      ...inputs,
      account: json ? JSON.stringify(account) : account,
      secrets: json ? JSON.stringify(secrets) : secrets,
    },
  };
};
