/**
 * The `LanguageRuntime` RPCs of the stand-in host (./main.ts says what differs from the Go host),
 * each after its namesake in pulumi/pulumi v3.250.0 `sdk/nodejs/cmd/pulumi-language-nodejs/main.go`,
 * and what Run and RunPlugin (./run-plugin.ts) share: the runtime options, `nodeargs`, the run script.
 */
import { ChildProcess, execFile, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import type * as grpcTypes from "@grpc/grpc-js";

export const sdkDir = path.dirname(require.resolve("@pulumi/pulumi/package.json"));
const pb = require(path.join(sdkDir, "proto", "language_pb"));
const pluginPb = require(path.join(sdkDir, "proto", "plugin_pb"));
const emptyPb = require(require.resolve("google-protobuf/google/protobuf/empty_pb", { paths: [sdkDir] }));

/** `cmd/run` exits with this after it has shown the user an actionable message: answer `bail`. */
const EXITED_AFTER_USER_MESSAGE = 32;
/** `cmd.WaitDelay` of the Go host's Cancel. */
const WAIT_DELAY_MS = 5000;

/** `parseOptions`: the runtime options of Pulumi.yaml or PulumiPolicy.yaml. */
export function parseOptions(info: any): { typescript: boolean; tsconfig: string; nodeargs: string; pm: unknown } {
  const o: Record<string, unknown> = info?.getOptions?.()?.toJavaScript() ?? {};
  const typed = <T>(key: string, type: string, fallback: T): T => {
    if (o[key] === undefined) return fallback;
    if (typeof o[key] !== type)
      throw new Error(`${key === "tsconfig" ? "tsconfigpath" : key} option must be a ${type}`);
    return o[key] as T;
  };
  return {
    typescript: typed("typescript", "boolean", true),
    tsconfig: typed("tsconfig", "string", ""),
    nodeargs: typed("nodeargs", "string", ""),
    pm: o.packagemanager,
  };
}

/** `nodeargs`, split at whitespace (the Go host's shlex also honours quotes, which no program here uses). */
export const splitArgs = (s: string): string[] => s.split(/\s+/).filter(Boolean);

/** `locateModule`: the run script, resolved from the program directory by the program's own Node.js. */
export function locateModule(node: string, mod: string, programDir: string, isPlugin = false): Promise<string> {
  const hint = `It looks like the Pulumi SDK has not been installed. Have you run ${isPlugin ? `npm install in ${programDir}` : "pulumi install"}?`;
  const script = `try { console.log(require.resolve(${JSON.stringify(mod)})); } catch (error) { console.error(error.code === 'MODULE_NOT_FOUND' ? ${JSON.stringify(hint)} : error.message); process.exit(1); }`;
  return new Promise((resolve, reject) =>
    execFile(node, ["-e", script], { cwd: programDir }, (err, stdout, stderr) =>
      err ? reject(new Error(stderr || err.message)) : resolve(stdout.trim()),
    ),
  );
}

/** exec.LookPath: the first executable file of that name on PATH. */
export function lookPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? "").split(path.delimiter).filter(Boolean)) {
    const candidate = path.join(dir, name);
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      if (fs.statSync(candidate).isFile()) return candidate;
    } catch {
      // not in this directory
    }
  }
  return undefined;
}

/** `constructConfig`: keys as `<namespace>:config:<name>`, the form every SDK version reads. */
function configJson(config: Array<[string, string]>): string {
  const out: Record<string, string> = {};
  for (const [key, value] of config) {
    const i = key.indexOf(":");
    if (i < 0) throw new Error(`failed to serialize configuration: could not parse ${key} as a configuration key`);
    out[`${key.slice(0, i)}:config:${key.slice(i + 1).replace(/^config:/, "")}`] = value;
  }
  return JSON.stringify(out);
}

/** `getPackagesFromDir`: packages under node_modules whose package.json says `pulumi.resource` (policy packs skipped). */
function requiredPackages(programDir: string): Array<{ name: string; version: string; server: string }> {
  const found: Array<{ name: string; version: string; server: string }> = [];
  const seen = new Set<string>();
  const walk = (dir: string, inModules: boolean) => {
    if (seen.has(dir)) return;
    seen.add(dir);
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return; // unreadable: the Go host logs and skips it
    }
    for (const e of entries) {
      let full = path.join(dir, e.name);
      let isDir = e.isDirectory();
      let info: any;
      try {
        if (e.isSymbolicLink()) [full, isDir] = [fs.realpathSync(full), fs.statSync(full).isDirectory()];
        if (!isDir && inModules && e.name === "package.json") info = JSON.parse(fs.readFileSync(full, "utf8"));
      } catch {
        continue; // a dangling link or a package.json that is no JSON: the Go host logs and skips it
      }
      if (isDir && !fs.existsSync(path.join(full, "PulumiPolicy.yaml")))
        walk(full, inModules || path.basename(dir) === "node_modules");
      else if (info?.pulumi?.resource) {
        const version: string = info.pulumi.version || info.version || "";
        found.push({
          name: info.pulumi.name || String(info.name).replace(/^@pulumi\//, ""),
          version: version.startsWith("v") ? version : `v${version}`,
          server: info.pulumi.server ?? "",
        });
      }
    }
  };
  walk(path.resolve(programDir), false);
  return found;
}

/** `npm.ResolvePackageManager`: the option, else the lock file found upwards (if that manager is on PATH), else npm. */
function packageManager(option: unknown, programDir: string): string {
  if (typeof option === "string" && option !== "auto") return option;
  for (let d = path.resolve(programDir); d !== path.dirname(d); d = path.dirname(d))
    for (const [lock, pm] of [
      ["yarn.lock", "yarn"],
      ["pnpm-lock.yaml", "pnpm"],
    ])
      if (fs.existsSync(path.join(d, lock)) && lookPath(pm)) return pm;
  return "npm";
}

type Unary = (call: grpcTypes.ServerUnaryCall<any, any>, callback: grpcTypes.sendUnaryData<any>) => void;

export class LanguageHost {
  private readonly running = new Set<ChildProcess>();

  constructor(
    private readonly grpc: typeof grpcTypes,
    private engineAddress: string,
    private readonly tracing: string,
  ) {}

  service(): grpcTypes.UntypedServiceImplementation {
    const wrap =
      (fn: (req: any) => Promise<any> | any): Unary =>
      (call, callback) =>
        void Promise.resolve()
          .then(() => fn(call.request))
          .then(
            (res) => callback(null, res),
            (err: Error) => callback({ code: this.grpc.status.UNKNOWN, details: err.message }),
          );
    const unimplemented = ["about", "getProgramDependencies", "runtimeOptionsPrompts", "template", "pack", "link"]
      .concat(["getRequiredPlugins", "generateProgram", "generateProject", "generatePackage"])
      .map((name): [string, Unary] => [
        name,
        (_call, callback) =>
          callback({ code: this.grpc.status.UNIMPLEMENTED, details: `method ${name} not implemented` }),
      ]);
    return {
      ...Object.fromEntries(unimplemented),
      handshake: wrap((req) => {
        this.engineAddress = req.getEngineAddress();
        return new pb.LanguageHandshakeResponse();
      }),
      getPluginInfo: wrap(() =>
        new pluginPb.PluginInfo().setVersion(require(path.join(sdkDir, "package.json")).version),
      ),
      getRequiredPackages: wrap((req) =>
        new pb.GetRequiredPackagesResponse().setPackagesList(
          requiredPackages(req.getInfo().getProgramDirectory()).map((p) =>
            new pluginPb.PackageDependency()
              .setName(p.name)
              .setKind("resource")
              .setVersion(p.version)
              .setServer(p.server),
          ),
        ),
      ),
      run: (call: grpcTypes.ServerUnaryCall<any, any>, callback: grpcTypes.sendUnaryData<any>) =>
        void this.run(call).then(
          (res) => callback(null, res),
          (err: Error) => callback({ code: this.grpc.status.UNKNOWN, details: err.message }),
        ),
      installDependencies: (call: grpcTypes.ServerWritableStream<any, any>) => void this.installDependencies(call),
      cancel: wrap(() => {
        for (const child of this.running) this.stop(child);
        return new emptyPb.Empty();
      }),
    };
  }

  /** SIGINT, then SIGKILL after 5 s (`cmd.Cancel`, `cmd.WaitDelay`). */
  private stop(child: ChildProcess) {
    if (child.exitCode !== null || child.signalCode !== null) return;
    if (!child.kill("SIGINT")) child.kill("SIGKILL");
    setTimeout(
      () => child.exitCode === null && child.signalCode === null && child.kill("SIGKILL"),
      WAIT_DELAY_MS,
    ).unref();
  }

  private async run(call: grpcTypes.ServerUnaryCall<any, any>) {
    const req = call.request;
    const response = (error: string, bail = false) => new pb.RunResponse().setError(error).setBail(bail);
    if (!this.engineAddress) throw new Error("when debugging or running explicitly, must call Handshake before Run");
    const info = req.getInfo();
    const programDir: string = info.getProgramDirectory();
    const node = lookPath("node");
    if (!node) return response('could not find node on the $PATH: exec: "node": executable file not found in $PATH');
    const env: NodeJS.ProcessEnv = { ...process.env };
    const args: string[] = [];
    try {
      const opts = parseOptions(info);
      env.PULUMI_CONFIG = configJson(req.getConfigMap().getEntryList());
      env.PULUMI_CONFIG_SECRET_KEYS = JSON.stringify(req.getConfigsecretkeysList());
      if (opts.typescript) env.PULUMI_NODEJS_TYPESCRIPT = "true";
      if (opts.tsconfig) env.PULUMI_NODEJS_TSCONFIG_PATH = opts.tsconfig;
      const runPath = process.env.PULUMI_LANGUAGE_NODEJS_RUN_PATH || "@pulumi/pulumi/cmd/run";
      args.push(...splitArgs(opts.nodeargs), await locateModule(node, runPath, programDir));
    } catch (err) {
      return response((err as Error).message);
    }
    const flag = (k: string, v: string) => v && args.push(`--${k}`, v);
    flag("monitor", req.getMonitorAddress());
    flag("engine", this.engineAddress);
    flag("organization", req.getOrganization());
    flag("project", req.getProject());
    flag("root-directory", info.getRootDirectory());
    flag("stack", req.getStack());
    flag("pwd", programDir);
    if (req.getDryrun()) args.push("--dry-run");
    flag("parallel", String(req.getParallel()));
    flag("tracing", this.tracing);
    args.push(info.getEntryPoint(), ...req.getArgsList());

    // Output through pipes the host copies, never the host's own stdout (Go: cmd.Stdout = struct{ io.Writer }{os.Stdout}).
    const child = spawn(node, args, { env, stdio: ["ignore", "pipe", "pipe"] });
    this.running.add(child);
    call.on("cancelled", () => this.stop(child));
    child.stdout.on("data", (chunk: Buffer) => process.stdout.write(chunk));
    child.stderr.on("data", (chunk: Buffer) => process.stderr.write(chunk));
    // "close": the program's last output is copied before the answer (the Go host waits for its pipes too).
    const result = await new Promise<{ code: number | null; error?: Error }>((resolve) => {
      child.once("error", (error) => resolve({ code: null, error }));
      child.once("close", (code, signal) => resolve({ code: code ?? (signal ? -1 : null) }));
    });
    this.running.delete(child);
    if (result.error)
      return response(`Problem executing program (could not run language executor): ${result.error.message}`);
    if (result.code === 0) return response("");
    if (result.code === EXITED_AFTER_USER_MESSAGE) return response("", true);
    return response(`Program exited with non-zero exit code: ${result.code}`);
  }

  /** The package manager's install in the program directory, its output streamed back. */
  private async installDependencies(call: grpcTypes.ServerWritableStream<any, any>) {
    const send = (out: boolean, data: Buffer | string) => {
      const msg = new pb.InstallDependenciesResponse();
      call.write(out ? msg.setStdout(Buffer.from(data)) : msg.setStderr(Buffer.from(data)));
    };
    try {
      const info = call.request.getInfo();
      const pm = packageManager(parseOptions(info).pm, info.getProgramDirectory());
      send(true, "Installing dependencies...\n\n");
      const args = { npm: ["install", "--loglevel=error"], pnpm: ["install", "--use-stderr"] }[pm] ?? ["install"];
      const child = spawn(pm, args, { cwd: info.getProgramDirectory(), stdio: ["ignore", "pipe", "pipe"] });
      child.stdout.on("data", (d: Buffer) => send(true, d));
      child.stderr.on("data", (d: Buffer) => send(false, d));
      const code = await new Promise<number | null>((resolve, reject) =>
        child.once("error", reject).once("close", resolve),
      );
      if (code !== 0) throw new Error(`${pm} install failed: exit status ${code}`);
      send(true, "Finished installing dependencies\n\n");
      call.end();
    } catch (err) {
      // `destroy(err)` would end the stream without a status.
      call.emit("error", { code: this.grpc.status.UNKNOWN, details: (err as Error).message });
    }
  }
}
