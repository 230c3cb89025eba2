/**
 * Program-side state that lives as long as one program run: under the Automation API one process
 * runs many stacks' programs, each in an AsyncLocalStorage store of its own (automation/server.ts
 * `localState.withLocalStorage`), so values are keyed by that store, never module-level.
 */
type Store = object;

/** The SDK's store of the run this code is part of (the process-wide one outside the Automation API). */
function currentStore(): Store {
  // Not in the SDK's typed surface, but in every version of the peer range. Resolved the way
  // this package's `import "@pulumi/pulumi"` is, so it is the program's own runtime and store.
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a module path outside the SDK's typed surface
  return (require("@pulumi/pulumi/runtime/state") as { getStore(): Store }).getStore();
}

/** A value made once per program run by `make`, and the same value for the rest of that run. */
export function perRun<T>(make: () => T): () => T {
  const values = new WeakMap<Store, T>();
  return () => {
    const store = currentStore();
    if (!values.has(store)) values.set(store, make());
    return values.get(store)!;
  };
}
