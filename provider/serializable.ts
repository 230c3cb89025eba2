import type * as pulumi from "@pulumi/pulumi";

/** The frozen plugin entry modules; each one's exports object is a dynamic provider that state refers to. */
type RuntimeModule = "runtime" | "ledger-runtime";
const providers = new Map<string, pulumi.dynamic.ResourceProvider>();

/**
 * The provider object a resource hands to Pulumi's closure serializer, which writes it into state for
 * every resource, twice. Installed under node_modules/ it is the entry module's exports object, written
 * as one `require("pulumi-storage-user/dist/provider/runtime.js")` line. Loaded from elsewhere (a linked
 * workspace) that module would be inlined by value, so a forwarder that captures only the package path
 * is used instead. Either way the plugin loads the code from the program's node_modules, so state
 * written by one release runs on the next as long as these modules keep their exported functions.
 */
export function serializableProvider(
  module: RuntimeModule,
  resolved = require.resolve(`./${module}`),
): pulumi.dynamic.ResourceProvider {
  const installed = resolved.split(/[\\/]/).includes("node_modules");
  const key = `${module} ${installed}`;
  let provider = providers.get(key);
  if (provider) return provider;
  if (installed) provider = require(`./${module}`) as pulumi.dynamic.ResourceProvider;
  else {
    const p = `pulumi-storage-user/dist/provider/${module}`;
    provider = {
      async configure(req) {
        require(p).configure?.(req);
      },
      check: (olds, news) => require(p).check(olds, news),
      diff: (id, olds, news) => require(p).diff(id, olds, news),
      create: (inputs) => require(p).create(inputs),
      update: (id, olds, news) => require(p).update(id, olds, news),
      ...(module === "runtime" ? { read: (id: string, props: unknown) => require(p).read(id, props) } : {}),
      delete: (id, props) => require(p).remove(id, props),
    };
  }
  providers.set(key, provider);
  return provider;
}
