/**
 * Program-side state that lives as long as one program run, never as long as the process.
 *
 * Under the Automation API one Node process runs many stacks' inline programs, in turn and at
 * once (pulumi/pulumi sdk/nodejs/automation/server.ts runs each in
 * `localState.withLocalStorage`, an AsyncLocalStorage store of its own). The SDK keeps each
 * run's config, stack and project in that store; a module-level `let` of this package would be
 * shared by every stack the process serves, so a check done for the first stack would be
 * skipped for the next one. Keyed by the store object instead, each value belongs
 * to exactly one run and goes with it. A program run by the CLI has one store for the process,
 * which is one run.
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
