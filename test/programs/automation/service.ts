/**
 * A service driving many stacks through the Automation API in one Node.js process, with inline
 * programs and default options (no projectSettings, no workDir), as Pulumi's docs show them.
 * Run by test/e2e/engine/automation.test.ts, compiled against the packed package; prints one JSON
 * line per step. Secret values never reach the output: only whether they were marked secret.
 *
 *   node dist/service.js <apiUrl1> <apiUrl2> <token1> <token2>
 */
import { ConfigValue, EngineEvent, LocalWorkspace, Stack } from "@pulumi/pulumi/automation";
import { StorageUser } from "pulumi-storage-user";
import { checkStackConfig, storageUserDiagnostics, storageUserFailures } from "pulumi-storage-user/automation";

const projectName = "svc";

function stackOf(stackName: string, userName: string): Promise<Stack> {
  return LocalWorkspace.createOrSelectStack({
    stackName,
    projectName,
    program: async () => {
      const user = new StorageUser("storage", { userName });
      return { userId: user.userId, s3: user.s3, env: user.env };
    },
  });
}

async function configure(stack: Stack, baseUrl: string, token: string, secret: boolean) {
  const config: Record<string, ConfigValue> = {
    "storage:baseUrl": { value: baseUrl },
    "storage:accessToken": { value: token, secret },
  };
  await stack.setAllConfig(config);
}

/** `up` of one stack; what a caller can read of it. */
async function up(step: string, stack: Stack) {
  const events: EngineEvent[] = [];
  try {
    const r = await stack.up({ onEvent: (e) => events.push(e) });
    const s3 = r.outputs.s3;
    // The serialized provider as state holds it: the same text whichever stack of the process wrote it.
    const resources: Array<{ type: string; inputs?: { __provider?: string } }> =
      (await stack.exportStack()).deployment.resources ?? [];
    const provider = resources.find((res) => res.type.endsWith(":StorageUser"))?.inputs?.__provider;
    return {
      step,
      ok: true,
      userId: r.outputs.userId.value,
      s3Secret: s3.secret,
      provider,
      ...storageUserDiagnostics(events),
    };
  } catch (err) {
    return {
      step,
      ok: false,
      errorName: (err as Error).constructor.name,
      failures: storageUserFailures(events),
      fromText: storageUserFailures(err),
    };
  }
}

/** Destroys the stack, keeping it (and its history, which the test searches) in the backend. */
async function destroy(step: string, stack: Stack) {
  const events: EngineEvent[] = [];
  await stack.destroy({ onEvent: (e) => events.push(e) });
  return { step, ok: true, ...storageUserDiagnostics(events) };
}

const print = (result: object) => console.log(JSON.stringify(result));

/** checkStackConfig's verdict on a stack. */
const checkOf = (step: string, stack: Stack) =>
  checkStackConfig(stack).then(
    () => ({ step, ok: true }),
    (err) => ({ step, ok: false, code: err.code, message: err.message }),
  );

async function main() {
  const run = Date.now().toString(36);
  const [api1, api2, token1, token2] = process.argv.slice(2);
  // 1. a secret token, then 2. a plain one, in the same process: the second is refused.
  const first = await stackOf(`first-${run}`, `first-${run}`);
  await configure(first, api1, token1, true);
  print(await up("secret-token", first));
  // The service's own check refuses it before any operation, so the token never reaches the backend.
  const checked = await stackOf(`checked-${run}`, `checked-${run}`);
  await configure(checked, api1, token1, false);
  print(await checkOf("plain-token-check", checked));
  // A connection's token, set by path: plain is refused (naming its key), secret passes.
  const named = await stackOf(`named-${run}`, `named-${run}`);
  await named.setConfig("storage:connections.eu.baseUrl", { value: api1 }, true);
  await named.setConfig("storage:connections.us.accessToken", { value: token1, secret: true }, true);
  await named.setConfig("storage:connections.eu.accessToken", { value: token1, secret: false }, true);
  print(await checkOf("named-plain-check", named));
  await named.setConfig("storage:connections.eu.accessToken", { value: token1, secret: true }, true);
  print(await checkOf("named-secret-check", named));
  await named.workspace.removeStack(named.name);
  // Without that check, the program refuses it at up: a check per run, whatever ran before.
  const plain = await stackOf(`plain-${run}`, `plain-${run}`);
  await configure(plain, api1, token1, false);
  print(await up("plain-token", plain));
  // 3. two stacks at once, each on its own API server.
  const [a, b] = await Promise.all([stackOf(`a-${run}`, `a-${run}`), stackOf(`b-${run}`, `b-${run}`)]);
  await configure(a, api1, token1, true);
  await configure(b, api2, token2, true);
  const [ra, rb] = await Promise.all([up("concurrent-a", a), up("concurrent-b", b)]);
  print(ra);
  print(rb);
  // 4. a name the service already has: the caller reads the code, the URN and the userName.
  const taken = await stackOf(`taken-${run}`, `first-${run}`);
  await configure(taken, api1, token1, true);
  print(await up("name-taken", taken));
  await taken.destroy();
  // 5. destroy: each user left on the service arrives as a warning event with its URN.
  for (const [step, stack] of [
    ["destroy-first", first],
    ["destroy-a", a],
    ["destroy-b", b],
  ] as const)
    print(await destroy(step, stack));
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
