// The modules the plugin reaches by name at run time (require.resolve, createRequire), listed so the bundler that makes
// the single executable (scripts/plugin-binary.ts) puts them inside it: an executable has no node_modules to look in.
// The bundle's banner sends every `require` and `require.resolve` here; a name not listed is not found
// (MODULE_NOT_FOUND, as Node says it), so a reach that feature-detects falls back as it would with the SDK moved.
// A reach into the SDK by a new name needs its line here: the release's checks run the binary through the engine.
/* eslint-disable @typescript-eslint/no-require-imports, @typescript-eslint/no-unsafe-return -- each entry is a require
   the bundler follows, by a name it can read: the list's purpose. */
import Module = require("node:module"); // the module itself, not a copy: its createRequire is replaced below
import * as path from "node:path";

const modules: Record<string, () => unknown> = {
  "@grpc/grpc-js": () => require("@grpc/grpc-js"),
  "google-protobuf/google/protobuf/struct_pb": () => require("google-protobuf/google/protobuf/struct_pb"),
  "@pulumi/pulumi": () => require("@pulumi/pulumi"),
  "@pulumi/pulumi/package.json": () => require("@pulumi/pulumi/package.json"),
  "@pulumi/pulumi/provider/server": () => require("@pulumi/pulumi/provider/server"),
  "@pulumi/pulumi/runtime/state": () => require("@pulumi/pulumi/runtime/state"),
  "@pulumi/pulumi/proto/provider_pb": () => require("@pulumi/pulumi/proto/provider_pb"),
  "@pulumi/pulumi/proto/resource_pb": () => require("@pulumi/pulumi/proto/resource_pb"),
  "@pulumi/pulumi/proto/resource_grpc_pb": () => require("@pulumi/pulumi/proto/resource_grpc_pb"),
  "@pulumi/pulumi/proto/engine_pb": () => require("@pulumi/pulumi/proto/engine_pb"),
  "@pulumi/pulumi/proto/engine_grpc_pb": () => require("@pulumi/pulumi/proto/engine_grpc_pb"),
};

const notFound = (id: string) =>
  Object.assign(new Error(`Cannot find module '${id}' (not bundled: scripts/plugin-modules.ts)`), {
    code: "MODULE_NOT_FOUND",
  });
/** A name as listed above: `x/index`, `x.js` and `x/` are the name `x`. */
const listed = (id: string) => id.replace(/\.js$/, "").replace(/\/(index)?$/, "");
function resolve(id: string): string {
  if (Module.isBuiltin(id)) return id;
  if (listed(id) in modules) return listed(id);
  throw notFound(id);
}
/** A require relative to a listed module: the SDK's own `../proto/…` names, as a createRequire of it asks them. */
const requireFrom = (from: string) =>
  Object.assign(
    (id: string) => bundledRequire(id.startsWith(".") ? path.posix.join(path.posix.dirname(from), id) : id),
    { resolve: (id: string) => resolve(id.startsWith(".") ? path.posix.join(path.posix.dirname(from), id) : id) },
  );
const builtin = Module.createRequire(__filename);
function bundledRequire(id: string): unknown {
  if (Module.isBuiltin(id)) return builtin(id);
  return modules[resolve(id)]();
}

const createRequire = Module.createRequire;
(Module as { createRequire: (from: string | URL) => unknown }).createRequire = (from) =>
  typeof from === "string" && !path.isAbsolute(from) && !from.startsWith("file:")
    ? requireFrom(from)
    : createRequire(from);
(globalThis as Record<string, unknown>).__storageUserBundle = { require: bundledRequire, resolve };
