/**
 * Preloaded by bench/profile.ts (NODE_OPTIONS=--require) next to --cpu-prof: the engine ends the
 * dynamic-provider plugin with a signal, which skips the profile --cpu-prof writes at exit. In the
 * plugin only, a signal becomes a normal exit, so the profile is written.
 */
if (process.argv.some((a) => a.includes("dynamic-provider"))) {
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => process.exit(0));
}
