// @ts-check
// The bare POST as a dynamic provider: undici's `request`, no validation, no retry, no timeouts;
// the same outputs as StorageUser. Its exports object is the provider, so the closure serializer
// writes `require("psu-bench-raw")` into state, as it writes StorageUser's one-line require.
// The address and token come from the plugin's environment (STORAGE_API_URL, STORAGE_ACCESS_TOKEN).

/** @param {Record<string, unknown>} o */
const lower = (o) => Object.fromEntries(Object.entries(o).map(([k, v]) => [k[0].toLowerCase() + k.slice(1), v]));

/** @param {{ userName: string, persistPassword: boolean }} inputs */
exports.create = async function create(inputs) {
  const { request } = require("undici");
  const res = await request(`${process.env.STORAGE_API_URL}/storage/users`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: process.env.STORAGE_ACCESS_TOKEN },
    body: JSON.stringify({ UserName: inputs.userName, PersistPassword: inputs.persistPassword ? 1 : 0 }),
  });
  /** @type {any} */
  const u = await res.body.json();
  if (res.statusCode !== 200) throw new Error(`POST answered ${res.statusCode}`);
  const [{ endpoint: swiftEndpoint, ...swift }, { endpoint: s3Endpoint, ...s3 }, { hostName: ftpHostName, ...ftp }] = [
    u.SwiftApiConnection,
    u.S3Connection,
    u.FtpConnection,
  ].map(lower);
  const account = {
    baseUrl: `${process.env.STORAGE_API_URL}/`,
    state: u.State,
    tasks: u.Tasks.map(lower),
    swiftEndpoint,
    s3Endpoint,
    ftpHostName,
  };
  return {
    id: String(u.Id),
    outs: {
      ...inputs,
      account: JSON.stringify(account),
      secrets: JSON.stringify({ name: u.Name, password: u.Password, swift, s3, ftp }),
    },
  };
};
