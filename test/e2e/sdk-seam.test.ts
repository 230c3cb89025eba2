// The seam (provider/core/sdk-seam.ts) against each @pulumi/pulumi it must work with: the lowest of the peer range,
// the pinned one and the newest (tools/toolchain/versions.json sdkNewest, as the install matrix), each installed once
// into the cache, outside the clone; and against an SDK that moved (a package with none of the modules it reaches),
// where each reach does nothing, says so, and throws nothing. The compiled seam runs in a Node.js process of its own
// beside each SDK, so the process's globals are its own.
import { execFileSync, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { cacheDir, nodeBinDir, pins, repoRoot } from "../../scripts/toolchain";

const pkg = JSON.parse(fs.readFileSync(path.join(repoRoot, "package.json"), "utf8")) as {
  peerDependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};
const versions = {
  lowest: pkg.peerDependencies["@pulumi/pulumi"].replace(/^\^/, ""),
  pinned: pkg.devDependencies["@pulumi/pulumi"],
  newest: pins.sdkNewest,
};
const seamJs = path.join(repoRoot, "dist", "provider", "core", "sdk-seam.js");
let tmp: string;

/** `@pulumi/pulumi@version` in a folder of the cache of its own, installed once (aside, then renamed into place). */
function sdkAt(version: string): string {
  const dir = path.join(cacheDir, "sdk-seam", version);
  if (fs.existsSync(path.join(dir, "node_modules", "@pulumi", "pulumi", "package.json"))) return dir;
  const aside = `${dir}.${process.pid}`;
  fs.rmSync(aside, { recursive: true, force: true });
  fs.mkdirSync(aside, { recursive: true });
  fs.writeFileSync(path.join(aside, "package.json"), JSON.stringify({ private: true }));
  execFileSync("npm", ["install", "--no-audit", "--no-fund", "--ignore-scripts", `@pulumi/pulumi@${version}`], {
    cwd: aside,
    env: { ...process.env, PATH: `${nodeBinDir()}${path.delimiter}${process.env.PATH}`, npm_config_loglevel: "error" },
    stdio: "pipe",
  });
  fs.rmSync(dir, { recursive: true, force: true });
  fs.renameSync(aside, dir);
  return dir;
}

/** What the probe reports: each reach applied or not, and what the patched code did. */
type Report = {
  store: boolean;
  redacts: boolean;
  engineLog: boolean;
  features: boolean;
  hooked: boolean;
  checkConfig?: unknown;
  configureRefused?: string;
  construct?: unknown;
  callsitesBefore?: number;
  quiet: boolean;
  callsitesAfter?: number;
  crashStack: boolean;
  inlineRunDir?: string;
  skipped: string[];
};

// Loads the seam as the plugin and the program side do, then drives each patched path the way the SDK calls it.
const probe = `
const path = require("node:path");
const seam = require("./seam.js");
const out = { crashStack: false };
const has = (id) => { try { require.resolve(id); return true; } catch { return false; } };
out.store = typeof seam.runStore() === "object";
const log = has("@pulumi/pulumi/log") ? require("@pulumi/pulumi/log") : {};
seam.redactResponseDumps(log);
out.redacts = typeof log.debug === "function" && log.debug[Symbol.for("pulumi-storage-user.debug-redaction")] === true;
out.engineLog = seam.engineLog("127.0.0.1:1") !== null;
out.features = seam.askFeaturesOnce();
out.hooked = seam.hookProviderServer({
  checkConfig: (urn, news) => ({ ...news, urn }),
  configure(args) { if (args.refuse) throw new Error("refused " + args.refuse); },
  create() {},
  construct(name, extras, run) { out.construct = extras; run(); },
  constructed() {},
});
if (out.hooked) {
  const sdk = path.dirname(require.resolve("@pulumi/pulumi/package.json"));
  const grpc = require(require.resolve("@grpc/grpc-js", { paths: [sdk] }));
  const { Struct } = require(require.resolve("google-protobuf/google/protobuf/struct_pb", { paths: [sdk] }));
  const pb = require("@pulumi/pulumi/proto/provider_pb");
  const impl = { configure: (c, cb) => cb(null, "configured"), create: (c, cb) => cb(null), construct: (c, cb) => cb(null) };
  new grpc.Server().addService(require("@pulumi/pulumi/proto/provider_grpc_pb").ResourceProviderService, impl);
  const check = new pb.CheckRequest();
  check.setUrn("urn:pulumi:s::p::pulumi:providers:storage-user::default");
  check.setNews(Struct.fromJavaScript({ baseUrl: "http://127.0.0.1:1" }));
  impl.checkConfig({ request: check }, (err, resp) => (out.checkConfig = err ?? resp.getInputs().toJavaScript()));
  const configure = new pb.ConfigureRequest();
  configure.setArgs(Struct.fromJavaScript({ refuse: "this" }));
  impl.configure({ request: configure }, (err) => (out.configureRefused = err && err.details));
  const construct = new pb.ConstructRequest();
  construct.setDeletebeforereplace?.(true);
  construct.setAdditionalsecretoutputsList?.(["userName", "state"]);
  construct.setReplaceonchangesList?.(["*"]);
  construct.setReplaceWithList?.(["urn:pulumi:s::p::t::other"]);
  construct.setDeletedwith?.("urn:pulumi:s::p::t::plain");
  const timeouts = new pb.ConstructRequest.CustomTimeouts();
  timeouts.setCreate("45s");
  timeouts.setDelete("5m");
  construct.setCustomtimeouts(timeouts);
  impl.construct({ request: construct }, () => {});
}
// A resource's stack as the SDK takes it: its frames (3.2xx), or its source position (3.139).
const { Resource } = require("@pulumi/pulumi/resource");
const frames = () => (Resource.callsites ? Resource.callsites().length : Resource.sourcePosition() ? 1 : 0);
out.callsitesBefore = frames();
out.quiet = seam.quietSdkStacks();
out.callsitesAfter = frames();
out.crashStack = /\\n    at /.test(new Error("a crash").stack);
seam.programStacks(__dirname + path.sep);
// An inline program run by the SDK's own LanguageServer, as the Automation API runs it, reads its RunRequest's pwd.
seam.keepInlineRunDirs();
let run;
if (has("@pulumi/pulumi/automation/server")) {
  const request = new (require("@pulumi/pulumi/proto/language_pb").RunRequest)();
  request.setPwd("/the/main");
  const { LanguageServer } = require("@pulumi/pulumi/automation/server");
  run = new LanguageServer(async () => void (out.inlineRunDir = seam.inlineRunDir())).run({ request }, () => {});
}
out.skipped = seam.skipped;
Promise.resolve(run).then(() => console.log(JSON.stringify(out)));
`;

function runProbe(dir: string): Report {
  fs.copyFileSync(seamJs, path.join(dir, "seam.js"));
  fs.writeFileSync(path.join(dir, "probe.js"), probe);
  const r = spawnSync(path.join(nodeBinDir(), "node"), ["probe.js"], { cwd: dir, encoding: "utf8" });
  expect(r.status, r.stdout + r.stderr).toBe(0);
  return JSON.parse(r.stdout.trim().split("\n").pop()!) as Report;
}

beforeAll(() => void (tmp = fs.mkdtempSync(path.join(os.tmpdir(), "psu-seam-"))));
afterAll(() => tmp && fs.rmSync(tmp, { recursive: true, force: true }));

describe.each(Object.entries(versions))("@pulumi/pulumi %s", (which, version) => {
  test(`${version}: every reach applies, and each patched path does what the plugin and the program rely on`, () => {
    const dir = path.join(tmp, version);
    fs.mkdirSync(dir);
    fs.symlinkSync(path.join(sdkAt(version), "node_modules"), path.join(dir, "node_modules"));
    const r = runProbe(dir);
    expect(r.skipped).toStrictEqual([]);
    expect([r.store, r.redacts, r.engineLog, r.features, r.hooked, r.quiet]).toStrictEqual([
      true,
      true,
      true,
      true,
      true,
      true,
    ]);
    expect(r.checkConfig).toStrictEqual({
      baseUrl: "http://127.0.0.1:1",
      urn: "urn:pulumi:s::p::pulumi:providers:storage-user::default",
    });
    expect(r.configureRefused).toBe("refused this");
    // Each option the request carries; 3.139's proto has no replaceWith (the engine of that day sent none).
    expect(r.construct).toStrictEqual({
      deleteBeforeReplace: true,
      additionalSecretOutputs: ["userName", "state"],
      replaceOnChanges: ["*"],
      replaceWith: which === "lowest" ? [] : ["urn:pulumi:s::p::t::other"],
      deletedWith: "urn:pulumi:s::p::t::plain",
      customTimeouts: { create: "45s", delete: "5m" },
    });
    // The SDK's stack probes are empty once quiet (3.139 takes a source position only, from its own caller, which
    // the probe is not); any other error keeps its frames.
    if (which !== "lowest") expect(r.callsitesBefore).toBeGreaterThan(0);
    expect([r.callsitesAfter, r.crashStack]).toStrictEqual([0, true]);
    expect(r.inlineRunDir).toBe("/the/main");
  });
});

test("an SDK that moved: each reach does nothing, names what it skipped, and throws nothing", () => {
  const dir = path.join(tmp, "moved");
  const sdk = path.join(dir, "node_modules", "@pulumi", "pulumi");
  fs.mkdirSync(sdk, { recursive: true });
  fs.writeFileSync(path.join(sdk, "package.json"), JSON.stringify({ name: "@pulumi/pulumi", version: "4.0.0" }));
  fs.writeFileSync(path.join(sdk, "resource.js"), "exports.Resource = { callsites: () => [] };");
  const r = runProbe(dir);
  expect([r.store, r.redacts, r.engineLog, r.features, r.hooked]).toStrictEqual([false, false, false, false, false]);
  expect(r.quiet).toBe(true); // a JavaScript global, which is there whatever the SDK
  expect(r.crashStack).toBe(true);
  // One line per what is skipped, first the missing module's, then its own when it looked further.
  expect([...new Set(r.skipped.map((line) => line.replace(/ skipped: .*/, "")))]).toStrictEqual([
    "pulumi-storage-user: the per-run store",
    "pulumi-storage-user: cutting the SDK's response dumps",
    "pulumi-storage-user: warnings under their resource",
    "pulumi-storage-user: asking the engine's features once",
    "pulumi-storage-user: the plugin's CheckConfig, Configure, Create and Construct",
    "pulumi-storage-user: an inline run's pwd",
  ]);
  expect(r.inlineRunDir).toBeUndefined();
});
