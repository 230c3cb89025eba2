/**
 * `node dist/scripts/pulumi-launcher.js <pulumi args>`: runs the real `pulumi` CLI on the
 * program in the current directory.
 *
 * Why this exists: the Go module of `pulumi-language-nodejs` is not served by the module
 * proxy this machine can reach (403 for every version), so the CLI cannot spawn its usual
 * Node.js language host. The CLI's `--client=<addr>` flag (used by the Automation API for
 * inline programs) lets it drive a LanguageRuntime that is already running instead; this
 * launcher serves the SDK's own `LanguageServer` from the program's `@pulumi/pulumi`, loads
 * the program in it, and passes `--client`. Engine, state, secrets, the dynamic-provider
 * plugin and closure serialization are all the real ones. With a normal Pulumi install,
 * plain `pulumi up` does the same job.
 */
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { locateCli } from "./stack";

const PROGRAM_COMMANDS = new Set(["up", "update", "preview", "pre", "refresh", "destroy", "down"]);

function programEntry(dir: string): string {
  const yaml = fs.readFileSync(path.join(dir, "Pulumi.yaml"), "utf8");
  const main = /^main:\s*(\S+)/m.exec(yaml)?.[1];
  const base = path.resolve(dir, main ?? ".");
  for (const candidate of [base, `${base}.ts`, `${base}.js`, path.join(base, "index.ts"), path.join(base, "index.js")]) {
    if (fs.existsSync(candidate) && fs.statSync(candidate).isFile()) return candidate;
  }
  throw new Error(`no program entry (index.ts or index.js) found in ${base}`);
}

/** TypeScript programs are transpiled on load, as the Node.js language host does with ts-node. */
function registerTypeScript() {
  const ts = require("typescript") as typeof import("typescript");
  require.extensions[".ts"] = (module, filename) => {
    const out = ts.transpileModule(fs.readFileSync(filename, "utf8"), {
      fileName: filename,
      compilerOptions: {
        module: ts.ModuleKind.CommonJS,
        target: ts.ScriptTarget.ES2022,
        esModuleInterop: true,
        // Pulumi resource classes declare `x!: Output<T>` fields that the base constructor sets.
        useDefineForClassFields: false,
      },
    });
    (module as unknown as { _compile(code: string, file: string): void })._compile(out.outputText, filename);
  };
}

async function serveProgram(dir: string): Promise<{ address: string; onExit(failed: boolean): void; stop(): void }> {
  const sdk = path.dirname(require.resolve("@pulumi/pulumi/package.json", { paths: [dir] }));
  const grpc = require(require.resolve("@grpc/grpc-js", { paths: [sdk] })) as typeof import("@grpc/grpc-js");
  const { LanguageServer } = require(path.join(sdk, "automation", "server"));
  const { LanguageRuntimeService } = require(path.join(sdk, "proto", "language_grpc_pb"));
  const entry = programEntry(dir);
  if (entry.endsWith(".ts")) registerTypeScript();

  // `pulumi up` runs the program twice in this process (preview, then update), like a fresh
  // language host would: the program's own modules are evaluated anew each time.
  const program = async () => {
    for (const file of Object.keys(require.cache)) {
      if (file.startsWith(dir + path.sep) && !file.includes(`${path.sep}node_modules${path.sep}`)) delete require.cache[file];
    }
    const mod = require(entry);
    const result = typeof mod?.default === "function" ? await mod.default() : mod;
    return { ...result };
  };
  const languageServer = new LanguageServer(program);
  const server = new grpc.Server({ "grpc.max_receive_message_length": 400 * 1024 * 1024 });
  server.addService(LanguageRuntimeService, languageServer);
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p))),
  );
  return {
    address: `127.0.0.1:${port}`,
    onExit: (failed) => languageServer.onPulumiExit(failed),
    stop: () => server.forceShutdown(),
  };
}

async function main() {
  const args = process.argv.slice(2);
  const dir = process.cwd();
  const cliDir = locateCli();
  const env = { ...process.env, PATH: [cliDir, process.env.PATH].join(path.delimiter) };

  const command = args.find((a) => !a.startsWith("-"));
  const served = command && PROGRAM_COMMANDS.has(command) ? await serveProgram(dir) : undefined;
  // The CLI treats a second SIGINT as "terminate now", abandoning in-flight creates. A terminal's
  // Ctrl-C reaches the whole foreground process group, CLI included, so it must not be forwarded
  // as well. Without a terminal the CLI gets a process group of its own and every signal sent to
  // this launcher (or its group) reaches it exactly once.
  const interactive = Boolean(process.stdin.isTTY);
  const child = spawn(path.join(cliDir, "pulumi"), served ? [...args, `--client=${served.address}`] : args, {
    stdio: "inherit",
    env,
    detached: !interactive,
  });
  const forward = (sig: NodeJS.Signals) => {
    if (!(interactive && sig === "SIGINT")) child.kill(sig);
  };
  process.on("SIGINT", forward);
  process.on("SIGTERM", forward);
  const code = await new Promise<number>((resolve) => child.on("exit", (c, sig) => resolve(c ?? (sig ? 130 : 1))));
  if (served) {
    try {
      served.onExit(code !== 0);
    } finally {
      served.stop();
    }
  }
  process.exit(code);
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
