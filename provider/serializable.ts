import type * as pulumi from "@pulumi/pulumi";

type RuntimeModule = "runtime" | "ledger-runtime";
const providers = new Map<string, pulumi.dynamic.ResourceProvider>();

// What the closure serializer writes into state, twice per resource: under node_modules/ the frozen entry module
// itself, one `require(…)` line; elsewhere (a linked workspace) a forwarder, or the module would be inlined. Either
// way the plugin loads today's code from the program's node_modules, so old state runs on new releases.
export function serializableProvider(module: RuntimeModule, resolved = require.resolve(`./${module}`)) {
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
