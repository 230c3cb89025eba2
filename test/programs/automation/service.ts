/**
 * A service driving many stacks through the Automation API in one Node.js process, with inline
 * programs and default options (no projectSettings, no workDir), as Pulumi's docs show them. Run by
 * test/e2e/engine/automation.test.ts, compiled against the packed package; prints one JSON line per
 * step. Secret values never reach the output: only whether they were marked secret.
 *
 *   node dist/service.js <apiUrl1> <apiUrl2> <token1> <token2>
 */
import { EngineEvent, LocalWorkspace, Stack } from "@pulumi/pulumi/automation";
import { StorageUser } from "pulumi-storage-user";
import {
  checkStackConfig,
  setStorageConfig,
  storageUserDiagnostics,
  storageUserFailures,
} from "pulumi-storage-user/automation";

const run = Date.now().toString(36);
const [api1, api2, token1, token2] = process.argv.slice(2);
const print = (result: object) => console.log(JSON.stringify(result));

/** A stack `<name>-<run>` with one user, configured with `baseUrl` and `token` (secret or not). */
async function stackOf(name: string, baseUrl: string, token: string, secret: boolean, userName = `${name}-${run}`) {
  const program = async () => {
    const user = new StorageUser("storage", { userName });
    return { userId: user.userId, s3: user.s3, env: user.env };
  };
  const stack = await LocalWorkspace.createOrSelectStack({ stackName: `${name}-${run}`, projectName: "svc", program });
  const config = { "storage:baseUrl": { value: baseUrl }, "storage:accessToken": { value: token, secret } };
  // A plain token bypasses the package's check, as a service without it would: the program must refuse it.
  await (secret ? setStorageConfig(stack, config) : stack.setAllConfig(config));
  return stack;
}

/** `up` of one stack; what a caller can read of it. */
async function up(step: string, stack: Stack) {
  const events: EngineEvent[] = [];
  try {
    const r = await stack.up({ onEvent: (e) => events.push(e) });
    // The serialized provider as state holds it: the same text whichever stack of the process wrote it.
    const resources: Array<{ type: string; inputs?: { __provider?: string } }> =
      (await stack.exportStack()).deployment.resources ?? [];
    const provider = resources.find((res) => res.type.endsWith(":StorageUser"))?.inputs?.__provider;
    return {
      step,
      ok: true,
      userId: r.outputs.userId.value,
      s3Secret: r.outputs.s3.secret,
      provider,
      ...storageUserDiagnostics(events),
    };
  } catch (err) {
    const [failures, fromText] = [storageUserFailures(events), storageUserFailures(err)];
    return { step, ok: false, errorName: (err as Error).constructor.name, failures, fromText };
  }
}

/** checkStackConfig's verdict on a stack. */
const checkOf = (step: string, stack: Stack) =>
  checkStackConfig(stack).then(
    () => ({ step, ok: true }),
    (err) => ({ step, ok: false, code: err.code, message: err.message }),
  );

async function main() {
  // A secret token, then a plain one, in the same process: the second is refused.
  const first = await stackOf("first", api1, token1, true);
  print(await up("secret-token", first));
  // The service's own check refuses it before any operation, so the token never reaches the backend.
  print(await checkOf("plain-token-check", await stackOf("checked", api1, token1, false)));
  // A connection's token, set by path: plain is refused (naming its key), secret passes.
  const named = await stackOf("named", api1, token1, true);
  await named.setConfig("storage:connections.eu.baseUrl", { value: api1 }, true);
  await named.setConfig("storage:connections.eu.accessToken", { value: token1, secret: false }, true);
  print(await checkOf("named-plain-check", named));
  await setStorageConfig(
    named,
    { "storage:connections.eu.accessToken": { value: token1, secret: true } },
    { path: true },
  );
  print(await checkOf("named-secret-check", named));
  await named.workspace.removeStack(named.name);
  // Without that check, the program refuses it at up: a check per run, whatever ran before.
  print(await up("plain-token", await stackOf("plain", api1, token1, false)));
  // Two stacks at once, each on its own API server.
  const [a, b] = await Promise.all([stackOf("a", api1, token1, true), stackOf("b", api2, token2, true)]);
  for (const r of await Promise.all([up("concurrent-a", a), up("concurrent-b", b)])) print(r);
  // A name the service already has: the caller reads the code, the URN and the userName.
  const taken = await stackOf("taken", api1, token1, true, `first-${run}`);
  print(await up("name-taken", taken));
  await taken.destroy();
  // Destroy, keeping the stacks (and their history, which the test searches) in the backend: each
  // user left on the service arrives as a warning event with its URN.
  for (const [step, stack] of Object.entries({ "destroy-first": first, "destroy-a": a, "destroy-b": b })) {
    const events: EngineEvent[] = [];
    await stack.destroy({ onEvent: (e) => events.push(e) });
    print({ step, ok: true, ...storageUserDiagnostics(events) });
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
