// The plugin for YAML, Go and Python programs, run from the package (bin/): the program needs no node_modules
// (pulumi/pulumi#5455). StorageUser is a remote component: Construct registers a custom resource of its type and name
// that keeps TypeScript's state, and derives the outputs each run (docs/decisions.md "The plugin's state").
import * as path from "node:path";
import { AsyncLocalStorage } from "node:async_hooks";
import * as provider from "@pulumi/pulumi/provider";
import { createUrn, CustomResource, DependencyResource, ProviderResource } from "@pulumi/pulumi/resource";
import { checkConfig, settingKeys, Settings } from "../config";
import { lifecycle } from "../core/lifecycle";
import { StorageUserError } from "../messages";
import { argNames, refuseUnsupportedOptions, SUFFIX } from "../arguments";
import { nameFromUrn } from "../identity";
import { isObject, outputNames, SECRET_SIG } from "../model";
import { derive, secretOutputs, Stored } from "../derive";
import { keysInStackFile, plainInFiles, readProjectFile } from "../project-file";
import {
  askFeaturesOnce,
  ConstructExtras,
  hookProviderServer,
  ProviderHooks,
  quietSdkStacks,
  registration,
} from "../core/sdk-seam";
import { schema, typeToken } from "./schema";

type Props = Record<string, unknown>;
const settings = new Settings("storage-user");
const user = lifecycle(settings);
const engineKeys = new Set(["version", "pluginDownloadURL", "pluginChecksums", "name", "parameterization"]);
const isSecretValue = (v: unknown): v is { value: unknown } =>
  typeof v === "object" && v !== null && (v as Props)[SECRET_SIG[0]] === SECRET_SIG[1];
const secret = (value: unknown) => ({ [SECRET_SIG[0]]: SECRET_SIG[1], value });
// TypeScript's keys (`storage:…`) the stack's file sets: named when a setting of the plugin's own is missing.
const elsewhere = new Set<string>();

const fromEngine = (props: unknown): Props =>
  Object.fromEntries(Object.entries((props ?? {}) as Props).map(([k, v]) => [k, isSecretValue(v) ? v.value : v]));
/** What the engine stores of a user: TypeScript's state, `secrets` wrapped; no `__urn` (the engine knows it), no output. */
function toEngine({ __urn: _urn, [SUFFIX]: _suffix, ...outs }: Props): Props {
  for (const name of outputNames) delete outs[name];
  return outs.secrets === undefined ? outs : { ...outs, secrets: secret(outs.secrets) };
}

// The plugin runs in the program's directory: the project's, or below it.
function projectDir(): string {
  for (let d = process.cwd(); ; d = path.dirname(d)) {
    if (readProjectFile(d)) return d;
    if (d === path.dirname(d)) return process.cwd();
  }
}

// CheckConfig runs before the engine records the provider, values unmarked: it refuses another version, a key that is
// no setting, a token whose text stands in a config file. It hands the token back secret inside an object, which the
// engine marks secret again only if the config was (annotateSecrets): Configure, which sees marks, refuses it if not.
let checked = false; // Configure of destroy and refresh reads the provider's state, with no CheckConfig before it
function checkProviderConfig(urn: string, news: Props): Props {
  if (typeof news.version === "string" && news.version !== schema.version)
    throw new StorageUserError("VERSION_MISMATCH", { wanted: news.version, running: schema.version });
  const values = Object.fromEntries(
    Object.entries(news)
      .filter(([k, v]) => !engineKeys.has(k) && v !== undefined && v !== null)
      .map(([k, v]) => [`storage-user:${k}`, typeof v === "string" ? v : JSON.stringify(v)]),
  );
  const stack = /^urn:pulumi:([^:]+)::/.exec(urn)?.[1] ?? "";
  checkConfig(values, (_key, value) => plainInFiles(projectDir(), stack, value), { ns: "storage-user" });
  for (const key of keysInStackFile(projectDir(), stack, "storage")) elsewhere.add(key);
  checked = true;
  return typeof news.accessToken === "string" ? { ...news, accessToken: { token: secret(news.accessToken) } } : news;
}

// customTimeouts.create per URN, from each Create request (the SDK's server drops it).
const createTimeoutsMs = new Map<string, number>();
// Each Construct's options that the SDK's server does not pass to `construct`, read from its request.
const constructing = new AsyncLocalStorage<ConstructExtras>();

// @pulumi/pulumi/provider's server answers CheckConfig (unimplemented) and Configure itself and hands the provider
// nothing: the seam wraps its handlers.
const hooks: ProviderHooks = {
  checkConfig: checkProviderConfig,
  configure(args) {
    const token = args.accessToken;
    if (checked && isObject(token) && !isSecretValue(token)) {
      const keys = settingKeys("accessToken", undefined, "storage-user");
      throw new StorageUserError("CONFIG_NOT_SECRET", { ...keys, where: "not marked secret" });
    }
    // Today's `{ token }`, or the secret string that 0.5.0 recorded.
    const held = isSecretValue(token) ? token.value : token;
    args.accessToken = isObject(held) ? held.token : held;
    const values: Record<string, string> = {};
    for (const [k, v] of Object.entries(fromEngine(args))) if (typeof v === "string") values[`storage-user:${k}`] = v;
    settings.configure({ get: (key) => values[key] ?? (elsewhere.has(key) ? key : undefined) });
  },
  create(urn, seconds) {
    if (seconds > 0) createTimeoutsMs.set(urn, seconds * 1000);
  },
  construct(name, extras, run) {
    owe(name, 1);
    constructing.run(extras, run);
  },
  constructed: (name) => owe(name, -1),
};

// A failed create makes the engine end the run at once and close the plugin, with every Construct still on its way
// reported failed ("grpc: the client connection is closing"), though its user may have been created and recorded. So
// a create that fails answers only once every other Construct has answered: their creates hold the engine's workers
// and end on their own (within their budgets). One still unanswered 10 s after the last create ended no longer holds
// it back (its user waits for a worker the failing create holds, with `--parallel`).
const owed = new Map<string, number>(); // by resource name: Constructs not answered yet
let creating = 0;
const wake: Array<() => void> = [];
function owe(name: string, n: number): void {
  const left = (owed.get(name) ?? 0) + n;
  if (left > 0) owed.set(name, left);
  else owed.delete(name);
  for (const f of wake.splice(0)) f();
}
// A Construct that waits for another's answer (dependsOn) arrives only after it: none owed is answered for good only
// when none arrives for a moment either.
async function othersAnswered(): Promise<void> {
  for (let since = Date.now(), quiet = 0; owed.size > 0 || quiet < 8;) {
    if (creating > 0) since = Date.now();
    else if (Date.now() - since > 10_000) return;
    quiet = owed.size > 0 ? 0 : quiet + 1;
    await new Promise<void>((done) => {
      wake.push(done);
      setTimeout(done, 250).unref();
    });
  }
}

const withUrn = (urn: string, props: Props): Props => ({ ...props, __urn: urn });
class User extends CustomResource {}

const storageUserProvider: provider.Provider = {
  version: schema.version,
  schema: JSON.stringify(schema),
  async check(urn, olds, news) {
    const result = await user.check(fromEngine(olds), withUrn(urn, fromEngine(news)));
    const { __urn: _urn, ...stored } = result.inputs as Props; // the engine knows the URN
    return { inputs: stored, failures: result.failures };
  },
  diff: (id, urn, olds, news) => user.diff(id, fromEngine(olds), withUrn(urn, fromEngine(news))),
  async create(urn, inputs) {
    const timeout = createTimeoutsMs.get(urn);
    const name = nameFromUrn(urn);
    creating++;
    let result: Awaited<ReturnType<typeof user.create>>;
    try {
      result = await user.create({
        ...withUrn(urn, fromEngine(inputs)),
        ...(timeout ? { __createTimeoutMs: timeout } : {}),
      });
    } catch (err) {
      creating--;
      owe(name, -1); // its own Construct answers only after the engine hears of this
      await othersAnswered();
      throw err;
    }
    creating--;
    owe(name, 0); // a create fewer running
    return { id: result.id, outs: toEngine(result.outs as Props) };
  },
  async update(id, urn, olds, news) {
    return { outs: toEngine((await user.update(id, fromEngine(olds), withUrn(urn, fromEngine(news)))).outs as Props) };
  },
  async read(id, urn, props) {
    // `pulumi import` and a Go `GetStorageUser` read a user the stack never had: the API cannot hand it over.
    const old = fromEngine(props);
    if (old.account === undefined && old.baseUrl === undefined)
      throw new StorageUserError("IMPORT_UNSUPPORTED", { name: nameFromUrn(urn) });
    const result = await user.read(id, old);
    // 0.5.0's state, which stored every output too, stays as it is: a refresh rewrites nothing.
    return { id: result.id, props: old.credentials === undefined ? toEngine(result.props as Props) : (props as Props) };
  },
  delete: (id, urn, props) => user.remove(id, withUrn(urn, fromEngine(props))),
  async construct(name, type, inputs, options) {
    // Every option of the request, as the TypeScript class takes them (docs/lifecycle.md "Resource options").
    const extras = constructing.getStore();
    const replaceOnChanges = [...(options.replaceOnChanges ?? []), ...(extras?.replaceOnChanges ?? [])];
    refuseUnsupportedOptions(name, { deleteBeforeReplace: extras?.deleteBeforeReplace, replaceOnChanges });
    const props = { ...Object.fromEntries(argNames.map((k) => [k, undefined])), ...inputs };
    const { providers, ...rest } = options; // a map here (the SDK's server builds it); a custom resource takes one
    const provider = (providers as Record<string, ProviderResource> | undefined)?.["storage-user"];
    const secret = secretOutputs(extras?.additionalSecretOutputs);
    const opts = {
      ...rest,
      provider,
      additionalSecretOutputs: secret.state,
      ...(extras?.replaceWith.length
        ? { replaceWith: extras.replaceWith.map((urn) => new DependencyResource(urn)) }
        : {}),
      ...(extras?.hideDiffs?.length ? { hideDiffs: extras.hideDiffs } : {}),
      ...(extras?.deletedWith ? { deletedWith: new DependencyResource(extras.deletedWith) } : {}),
      ...(extras?.customTimeouts ? { customTimeouts: extras.customTimeouts } : {}),
    };
    const user = new User(type, name, { ...props, account: undefined, secrets: undefined }, opts) as User & Stored;
    // A user the engine refused (it reported why) or could not take (it is shutting down) ends its Construct
    // quietly: a failed Construct is one more error, and makes the engine abort the run at once, reporting every
    // other user's Construct still on the way as failed ("the client connection is closing") while its create may
    // well have succeeded. The run fails all the same, on the step's own error.
    const ended = await registration(user.urn);
    if (ended === "failed" || ended === "closing") return { urn: createUrn(name, type, rest.parent), state: {} };
    if (typeof ended === "object") throw ended.error;
    const outputs = Object.fromEntries(
      outputNames.map((output) => [output, derive(user, output, secret.derived.has(output))]),
    );
    const given = Object.fromEntries(Object.keys(props).map((k) => [k, (user as unknown as Props)[k]]));
    return { urn: user.urn, state: { ...given, ...outputs } };
  },
};

/** Starts the plugin: bin/pulumi-resource-storage-user, or yaml/'s `main` through a language host. */
export function serve(): Promise<void> {
  hookProviderServer(hooks);
  askFeaturesOnce();
  const serving = provider.main(storageUserProvider, process.argv.slice(2));
  quietSdkStacks(); // after main, which installs source-map-support's formatter
  return serving;
}
if (require.main === module) serve().catch((err: Error) => (console.error(err.stack ?? err.message), process.exit(1)));
export { typeToken };
