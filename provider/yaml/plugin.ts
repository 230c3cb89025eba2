/**
 * The package's own provider plugin for YAML and Go programs: StorageUser as a custom resource,
 * `storage-user:index:StorageUser`, started from the package's directory (bin/, named in
 * `plugins.providers`), so the program needs no node_modules (pulumi/pulumi#5455). An adapter
 * over the lifecycle TypeScript programs get (plugin/user-provider.ts); docs/yaml.md, docs/go.md.
 */
import * as provider from "@pulumi/pulumi/provider";
import { userProvider } from "../plugin/user-provider";
import { configKeys } from "../connections";
import { Settings } from "../plugin/settings";
import { createTimeoutsMs, receiveConfigure, settingsOf } from "./configure";
import { outputsOf, toEngine, fromEngine } from "./outputs";
import { schema } from "./schema";

type Props = Record<string, unknown>;

// Settings: `storage-user:baseUrl` and a secret `storage-user:accessToken` from the stack config
// (or an explicit provider's arguments), each with its environment variable as fallback
// (STORAGE_API_URL, STORAGE_ACCESS_TOKEN); named connections from the environment only.
// Until Configure arrives, the environment alone.
const namespace = schema.name;
const settings = new Settings(namespace);
const user = userProvider(settings);
receiveConfigure((values) => {
  const { baseUrl, accessToken } = settingsOf(values, namespace);
  const fromStack: Record<string, string | undefined> = {
    [configKeys.baseUrl.key]: baseUrl,
    [configKeys.accessToken.key]: accessToken,
  };
  settings.configure({ get: (key: string) => fromStack[key] });
});

// From dist/provider/yaml/, where the plugin runs.
// eslint-disable-next-line @typescript-eslint/no-require-imports -- package.json is outside rootDir for import
const pluginVersion = (require("../../../package.json") as { version: string }).version;

const withUrn = (urn: string, props: Props): Props => ({ ...props, __urn: urn });

const storageUserProvider: provider.Provider = {
  version: pluginVersion,
  schema: JSON.stringify(schema),
  async check(urn, olds, news) {
    const result = await user.check(fromEngine(olds), withUrn(urn, fromEngine(news)));
    return { inputs: result.inputs as Props, failures: result.failures };
  },
  async diff(id, urn, olds, news) {
    return user.diff(id, fromEngine(olds), withUrn(urn, fromEngine(news)));
  },
  async create(urn, inputs) {
    const timeoutMs = createTimeoutsMs.get(urn);
    const result = await user.create({
      ...withUrn(urn, fromEngine(inputs)),
      ...(timeoutMs === undefined ? {} : { __createTimeoutMs: timeoutMs }),
    });
    return { id: result.id, outs: toEngine(outputsOf(result.outs as Props, result.id)) };
  },
  async update(id, urn, olds, news) {
    const result = await user.update(id, fromEngine(olds), withUrn(urn, fromEngine(news)));
    return { outs: toEngine(outputsOf(result.outs as Props, id)) };
  },
  async read(id, urn, props) {
    const result = await user.read(id, fromEngine(props));
    return { id: result.id, props: toEngine(outputsOf(result.props as Props, result.id)) };
  },
  async delete(id, urn, props) {
    await user.remove(id, fromEngine(props));
  },
};

export function serve(): Promise<void> {
  return provider.main(storageUserProvider, process.argv.slice(2));
}
