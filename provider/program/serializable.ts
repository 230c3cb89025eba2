import type * as pulumi from "@pulumi/pulumi";

/** The frozen plugin entry modules (provider/*.ts); each one's exports object is a dynamic provider. */
export type RuntimeModule = "runtime" | "ledger-runtime";

const forwarders = new Map<RuntimeModule, pulumi.dynamic.ResourceProvider>();
const installed = new Map<RuntimeModule, pulumi.dynamic.ResourceProvider | null>();

/**
 * The provider object a resource hands to Pulumi's closure serializer, which writes it into
 * state for every resource, twice. It must capture nothing.
 *
 * Installed normally (under node_modules/), the provider *is* the runtime module's exports
 * object, which the serializer writes as one line, `require("pulumi-storage-user/dist/provider/
 * runtime.js")` (~0.3 KB). Loaded from elsewhere (a workspace symlink resolves outside
 * node_modules) that module would be inlined by value, so a forwarding object is used instead
 * (~2 KB) that captures only the module's package path. Either way the plugin loads the code by
 * package name from the program's node_modules, so state written by one release runs on the
 * next as long as these modules keep their exported functions. One object per module, so the
 * serializer's per-object cache serializes it once per program; decided once per program, as
 * resolving costs (the profile in bench/README.md).
 */
export function serializableProvider(module: RuntimeModule, resolvedPath?: string): pulumi.dynamic.ResourceProvider {
  let provider: pulumi.dynamic.ResourceProvider | null | undefined =
    resolvedPath === undefined ? installed.get(module) : undefined;
  if (provider === undefined) {
    provider = (resolvedPath ?? require.resolve(`../${module}`)).split(/[\\/]/).includes("node_modules")
      ? require(`../${module}`)
      : null;
    if (resolvedPath === undefined) installed.set(module, provider as pulumi.dynamic.ResourceProvider | null);
  }
  if (provider) return provider;
  let forwarder = forwarders.get(module);
  if (!forwarder) {
    const path = `pulumi-storage-user/dist/provider/${module}`;
    forwarder = {
      async configure(req) {
        require(path).configure?.(req);
      },
      check: (olds, news) => require(path).check(olds, news),
      diff: (id, olds, news) => require(path).diff(id, olds, news),
      create: (inputs) => require(path).create(inputs),
      update: (id, olds, news) => require(path).update(id, olds, news),
      ...(module === "runtime" ? { read: (id: string, props: any) => require(path).read(id, props) } : {}),
      delete: (id, props) => require(path).remove(id, props),
    };
    forwarders.set(module, forwarder);
  }
  return forwarder;
}
