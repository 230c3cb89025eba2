/**
 * The `LanguageRuntime` RPCs of the stand-in host (see ./main.ts for the differences from the Go
 * host). Each method mirrors its namesake in pulumi/pulumi v3.250.0
 * `sdk/nodejs/cmd/pulumi-language-nodejs/main.go`.
 */
import { ChildProcess, spawn } from "node:child_process";
import * as path from "node:path";
import type { Readable } from "node:stream";
import type * as grpcTypes from "@grpc/grpc-js";
import { listPackages } from "./lockfiles";
import { locateModule, type NodeOptions, parseOptions, splitArgs } from "./options";
import { runPlugin } from "./run-plugin";
import {
  installArgs,
  lookPath,
  mixedSdkWarning,
  requiredPackages,
  resolvePackageManager,
  toolVersion,
} from "./packages";

const sdkDir = path.dirname(require.resolve("@pulumi/pulumi/package.json"));
const pb = require(path.join(sdkDir, "proto", "language_pb"));
const pluginPb = require(path.join(sdkDir, "proto", "plugin_pb"));
const emptyPb = require(require.resolve("google-protobuf/google/protobuf/empty_pb", { paths: [sdkDir] }));

/** `cmd/run` exits with this after it has shown the user an actionable message: answer `bail`. */
const EXITED_AFTER_USER_MESSAGE = 32;
const DEFAULT_RUN_PATH = "@pulumi/pulumi/cmd/run";
/** `cmd.WaitDelay` of the Go host's Run. */
const WAIT_DELAY_MS = 5000;

/** Whether every stream ended within `ms`; those still open are destroyed. */
function streamsClosed(streams: Readable[], ms: number): Promise<boolean> {
  const open = streams.filter((s) => !s.readableEnded && !s.destroyed);
  if (!open.length) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      for (const s of open) s.destroy();
      resolve(false);
    }, ms);
    void Promise.all(open.map((s) => new Promise((r) => s.once("close", r)))).then(() => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

type Unary = (call: grpcTypes.ServerUnaryCall<any, any>, callback: grpcTypes.sendUnaryData<any>) => void;

/** `constructConfig`: keys as `<namespace>:config:<name>`, the form every SDK version reads. */
export function configJson(config: Map<string, string> | Array<[string, string]>): string {
  const out: Record<string, string> = {};
  for (const [key, value] of config) {
    const i = key.indexOf(":");
    if (i < 0)
      throw new Error(
        `failed to serialize configuration: could not parse ${key} as a configuration key (configuration keys should be of the form \`<namespace>:<name>\`)`,
      );
    const name = key.slice(i + 1).replace(/^config:/, "");
    out[`${key.slice(0, i)}:config:${name}`] = value;
  }
  return JSON.stringify(out);
}

export class LanguageHost {
  private readonly running = new Set<ChildProcess>();

  constructor(
    private readonly grpc: typeof grpcTypes,
    private engineAddress: string,
    private readonly tracing: string,
    private readonly onHandshake: (engineAddress: string) => void,
  ) {}

  service(): grpcTypes.UntypedServiceImplementation {
    const unimplemented =
      (name: string): Unary =>
      (_call, callback) =>
        callback({ code: this.grpc.status.UNIMPLEMENTED, details: `method ${name} not implemented` });
    const wrap =
      (fn: (req: any) => Promise<any> | any): Unary =>
      (call, callback) => {
        Promise.resolve()
          .then(() => fn(call.request))
          .then(
            (res) => callback(null, res),
            (err: Error) => callback({ code: this.grpc.status.UNKNOWN, details: err.message }),
          );
      };
    return {
      handshake: wrap((req) => this.handshake(req)),
      getPluginInfo: wrap(() =>
        new pluginPb.PluginInfo().setVersion(require(path.join(sdkDir, "package.json")).version),
      ),
      getRequiredPlugins: unimplemented("GetRequiredPlugins"),
      getRequiredPackages: wrap((req) => this.getRequiredPackages(req)),
      run: (call: grpcTypes.ServerUnaryCall<any, any>, callback: grpcTypes.sendUnaryData<any>) =>
        void this.run(call).then(
          (res) => callback(null, res),
          (err: Error) => callback({ code: this.grpc.status.UNKNOWN, details: err.message }),
        ),
      installDependencies: (call: grpcTypes.ServerWritableStream<any, any>) => void this.installDependencies(call),
      runtimeOptionsPrompts: wrap((req) => this.runtimeOptionsPrompts(req)),
      template: wrap(() => new pb.TemplateResponse()),
      about: wrap((req) => this.about(req)),
      getProgramDependencies: wrap((req) => this.getProgramDependencies(req)),
      runPlugin: (call: grpcTypes.ServerWritableStream<any, any>) => void runPlugin(this.grpc, call),
      generateProgram: unimplemented("GenerateProgram"),
      generateProject: unimplemented("GenerateProject"),
      generatePackage: unimplemented("GeneratePackage"),
      pack: unimplemented("Pack"),
      link: unimplemented("Link"),
      cancel: wrap(() => {
        this.cancelRunning();
        return new emptyPb.Empty();
      }),
    };
  }

  /** Ends a server stream with an error status; `destroy(err)` would close it without any status. */
  private failStream(call: grpcTypes.ServerWritableStream<any, any>, code: grpcTypes.status, details: string) {
    call.emit("error", { code, details });
  }

  private handshake(req: any) {
    this.engineAddress = req.getEngineAddress();
    this.onHandshake(this.engineAddress);
    return new pb.LanguageHandshakeResponse();
  }

  private getRequiredPackages(req: any) {
    const { packages, sdkVersions } = requiredPackages(req.getInfo().getProgramDirectory());
    const warning = mixedSdkWarning(sdkVersions);
    if (warning) process.stderr.write(warning);
    return new pb.GetRequiredPackagesResponse().setPackagesList(
      packages.map((p) => {
        const dep = new pluginPb.PackageDependency()
          .setName(p.name)
          .setKind("resource")
          .setVersion(p.version)
          .setServer(p.server);
        if (p.parameterization) {
          const { name, version, value } = p.parameterization;
          dep.setParameterization(
            new pluginPb.PackageParameterization()
              .setName(name)
              .setVersion(version)
              .setValue(Buffer.from(value ?? "", "base64")),
          );
        }
        return dep;
      }),
    );
  }

  /** SIGINT to every running program, then SIGKILL after 5 s (`cmd.Cancel`, `cmd.WaitDelay`). */
  private cancelRunning(only?: ChildProcess) {
    for (const child of only ? [only] : this.running) {
      if (child.exitCode !== null || child.signalCode !== null) continue;
      if (!child.kill("SIGINT")) child.kill("SIGKILL");
      setTimeout(() => child.exitCode === null && child.signalCode === null && child.kill("SIGKILL"), 5000).unref();
    }
  }

  private async run(call: grpcTypes.ServerUnaryCall<any, any>) {
    const req = call.request;
    const response = (error: string, bail = false) => new pb.RunResponse().setError(error).setBail(bail);
    if (!this.engineAddress) throw new Error("when debugging or running explicitly, must call Handshake before Run");
    const info = req.getInfo();
    const programDir: string = info.getProgramDirectory();
    const node = lookPath("node");
    if (!node) return response('could not find node on the $PATH: exec: "node": executable file not found in $PATH');

    let runPath: string;
    try {
      runPath = await locateModule(node, process.env.PULUMI_LANGUAGE_NODEJS_RUN_PATH || DEFAULT_RUN_PATH, programDir);
    } catch (err) {
      return response((err as Error).message);
    }

    const args = [runPath];
    const flag = (k: string, v: string | undefined) => v && args.push(`--${k}`, v);
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

    let opts: NodeOptions;
    let nodeArgs: string[];
    const env: NodeJS.ProcessEnv = { ...process.env };
    try {
      env.PULUMI_CONFIG = configJson(req.getConfigMap().getEntryList());
      env.PULUMI_CONFIG_SECRET_KEYS = JSON.stringify(req.getConfigsecretkeysList());
      opts = parseOptions(info);
      nodeArgs = splitArgs(opts.nodeargs);
    } catch (err) {
      return response((err as Error).message);
    }
    if (opts.typescript) env.PULUMI_NODEJS_TYPESCRIPT = "true";
    if (opts.tsconfig) env.PULUMI_NODEJS_TSCONFIG_PATH = opts.tsconfig;

    // Stdout through a pipe the host copies, never the host's own stdout: a process the program
    // leaves behind cannot hold the CLI's pipe open (Go: cmd.Stdout = struct{ io.Writer }{os.Stdout}).
    const child = spawn(node, [...nodeArgs, ...args], { env, stdio: ["ignore", "pipe", "pipe"] });
    this.running.add(child);
    call.on("cancelled", () => this.cancelRunning(child));
    child.stdout.on("data", (chunk: Buffer) => process.stdout.write(chunk));
    // Stderr passes through and is sniffed for V8's out-of-memory report, as the Go host does.
    let oom = false;
    let tail = "";
    child.stderr.on("data", (chunk: Buffer) => {
      process.stderr.write(chunk);
      const text = tail + chunk.toString("utf8");
      if (
        text.includes("<--- Last few GCs --->") ||
        text.includes("Check failed: needs_context && current_scope_ == closure_scope_")
      )
        oom = true;
      tail = text.slice(-128);
    });
    const result = await new Promise<{ code: number | null; error?: Error }>((resolve) => {
      child.once("error", (error) => resolve({ code: null, error }));
      child.once("exit", (code, signal) => resolve({ code: code ?? (signal ? -1 : null) }));
    });
    // cmd.WaitDelay: once the program has exited, its pipes get 5 s to close (a child it left may
    // hold them), then they are closed, and a clean exit becomes Go's ErrWaitDelay.
    if (!result.error && !(await streamsClosed([child.stdout, child.stderr], WAIT_DELAY_MS)) && result.code === 0) {
      result.error = new Error("exec: WaitDelay expired before I/O complete");
    }
    this.running.delete(child);
    if (result.error)
      return response(`Problem executing program (could not run language executor): ${result.error.message}`);
    if (result.code === 0) return response("");
    if (result.code === EXITED_AFTER_USER_MESSAGE) return response("", true);
    const hint = oom
      ? ". Detected a possible out of memory error. Consider increasing the memory available to the nodejs process by setting the `nodeargs` runtime option in Pulumi.yaml to `nodeargs: --max-old-space-size=<size>` where `<size>` is the maximum memory in megabytes that can be allocated to nodejs. See https://www.pulumi.com/docs/concepts/projects/project-file/#runtime-options"
      : "";
    return response(`Program exited with non-zero exit code: ${result.code}${hint}`);
  }

  private async installDependencies(call: grpcTypes.ServerWritableStream<any, any>) {
    const req = call.request;
    const send = (stream: "out" | "err", data: Buffer | string) => {
      const msg = new pb.InstallDependenciesResponse();
      if (stream === "out") msg.setStdout(Buffer.from(data));
      else msg.setStderr(Buffer.from(data));
      call.write(msg);
    };
    try {
      const info = req.getInfo();
      const programDir: string = info.getProgramDirectory();
      const pm = resolvePackageManager(parseOptions(info).packagemanager, programDir);
      send("out", "Installing dependencies...\n\n");
      const child = spawn(pm, installArgs(pm), { cwd: programDir, stdio: ["ignore", "pipe", "pipe"] });
      child.stdout.on("data", (d: Buffer) => send("out", d));
      child.stderr.on("data", (d: Buffer) => send("err", d));
      const code = await new Promise<number | null>((resolve, reject) => {
        child.once("error", reject);
        child.once("close", resolve);
      });
      if (code !== 0) throw new Error(`${pm} install failed: exit status ${code}`);
      send("out", "Finished installing dependencies\n\n");
      call.end();
    } catch (err) {
      this.failStream(call, this.grpc.status.UNKNOWN, (err as Error).message);
    }
  }

  private runtimeOptionsPrompts(req: any) {
    const res = new pb.RuntimeOptionsResponse();
    if (parseOptions(req.getInfo()).packagemanager !== undefined) return res;
    const STRING = pb.RuntimeOptionPrompt.RuntimeOptionType.STRING;
    const value = (s: string, display = s) =>
      new pb.RuntimeOptionPrompt.RuntimeOptionValue().setPrompttype(STRING).setStringvalue(s).setDisplayname(display);
    // MakeExecutablePromptChoices: managers found on PATH first, the others marked.
    const choices = ["npm", "pnpm", "yarn", "bun"]
      .map((pm) => ({ pm, found: Boolean(lookPath(pm)) }))
      .sort((a, b) => Number(b.found) - Number(a.found))
      .map(({ pm, found }) => value(pm, found ? pm : `${pm} [not found]`));
    const prompt = new pb.RuntimeOptionPrompt()
      .setKey("packagemanager")
      .setDescription("The package manager to use for installing dependencies")
      .setPrompttype(STRING)
      .setChoicesList(choices)
      .setDefault(value("npm"));
    return res.setPromptsList([prompt]);
  }

  private about(req: any) {
    const info = req.getInfo();
    const pm = resolvePackageManager(parseOptions(info).packagemanager, info.getProgramDirectory());
    const node = lookPath("node");
    if (!node) throw new Error('could not find executable "node"');
    const res = new pb.AboutResponse().setExecutable(node).setVersion(`v${toolVersion(node)}`);
    res.getMetadataMap().set("packagemanager", pm).set("packagemanagerVersion", toolVersion(pm));
    return res;
  }

  private getProgramDependencies(req: any) {
    const info = req.getInfo();
    const pm = resolvePackageManager(parseOptions(info).packagemanager, info.getProgramDirectory());
    const deps = listPackages(pm, info.getProgramDirectory(), req.getTransitivedependencies());
    return new pb.GetProgramDependenciesResponse().setDependenciesList(
      deps.map((d) => new pb.DependencyInfo().setName(d.name).setVersion(d.version)),
    );
  }
}
