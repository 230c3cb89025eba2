/**
 * Throwaway Pulumi stacks on the real CLI, fully offline: a file:// backend and PULUMI_HOME in
 * a temp dir, a passphrase secrets provider, no update checks, no plugin downloads. Used by
 * the tests, the demo and the benchmarks.
 */
import { ChildProcess, spawn } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { installConsumer, programRoots } from "./consumer";
import { locateCli, repoRoot, userPath } from "./toolchain";

export { cliVersion, locateCli, repoRoot } from "./toolchain";

/** JSON that the CLI or the engine wrote: the tests assert on its shape, so it is not typed here. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the tests assert on this JSON's shape
type Json = Record<string, any>;

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
  /** stdout and stderr together, in arrival order. */
  output: string;
}

export interface RunOptions {
  env?: Record<string, string | undefined>;
  /** Written to the command's standard input, which is then closed (default: no input). */
  input?: string;
  /** Called as output arrives; may signal the child (e.g. SIGINT mid-run). */
  onOutput?: (soFar: string, child: ChildProcess) => void;
}

export interface StackOptions {
  /** Directory with Pulumi.yaml; one inside the repository runs from a copy (programCopy). */
  programDir: string;
  /** Plain config, `key: value` (namespaced keys like storage:baseUrl, or project keys). */
  config?: Record<string, string>;
  /** Config set with --secret. */
  secrets?: Record<string, string>;
  /** Extra environment for every command (e.g. STORAGE_ACCESS_TOKEN, NODE_EXTRA_CA_CERTS). */
  env?: Record<string, string | undefined>;
  stackName?: string;
  /** Node.js the CLI, the language host, the program and the plugin run on (a pinned major or version). */
  nodeVersion?: string;
  /** Pulumi CLI version (built by tools/pulumi-cli/build.sh); default: the test project's CLI. */
  cliVersion?: string;
  /** Use that stack's backend, PULUMI_HOME and passphrase (for StackReference between stacks). */
  shareBackendWith?: TestStack;
}

/** Applies overrides to an environment; an undefined value removes the variable. */
function withEnv(env: NodeJS.ProcessEnv, overrides: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  for (const [k, v] of Object.entries(overrides)) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return env;
}

/**
 * A program inside the repository runs from a copy, so what the CLI writes beside Pulumi.yaml (the
 * stack's config file, from `stack init` and `config set`) never lands in the checkout, and the
 * program the user sees stays as it is. The copy keeps the program's place in the tree: its
 * folder, the folder of a `main` outside it, and from each folder above them what decides how the
 * program resolves and compiles (package.json, tsconfig.json, and node_modules as a link: in the
 * program folders the test run's install of the package, scripts/consumer.ts). For the root
 * program (Pulumi.yaml at the repository's root) only the root's own files are copied.
 *
 * Stacks share a copy while its content is the same (a folder named by its hash; each stack's
 * config file is its own), as a user's stacks share the project folder. That is also what ts-node
 * keys its compile cache on (the program's path, through its tsconfig options): a TypeScript
 * program is type-checked on its first run, not again for every stack. bench/work is scratch of
 * the benchmarks' own and runs where it is.
 */
export function programCopy(programDir: string, workDir: string): string {
  const rel = path.relative(repoRoot, programDir);
  if (rel.startsWith("..") || path.isAbsolute(rel) || rel === "bench/work" || rel.startsWith("bench/work/"))
    return programDir;
  const mirror = path.join(workDir, "repo");
  const linkModules = (dir: string) => {
    const link = path.join(mirror, dir, "node_modules");
    if (fs.lstatSync(link, { throwIfNoEntry: false })) return;
    const original = path.join(repoRoot, dir, "node_modules");
    if (programRoots.includes(dir)) fs.symlinkSync(path.join(installConsumer(), "node_modules"), link);
    else if (fs.existsSync(original)) fs.symlinkSync(fs.realpathSync(original), link);
  };
  const copyOwnFiles = (dir: string, names: string[]) => {
    fs.mkdirSync(path.join(mirror, dir), { recursive: true });
    for (const f of names)
      if (fs.statSync(path.join(repoRoot, dir, f), { throwIfNoEntry: false })?.isFile())
        fs.copyFileSync(path.join(repoRoot, dir, f), path.join(mirror, dir, f));
    linkModules(dir);
  };
  const copyFolder = (dir: string) => {
    const parts = dir === "" ? [] : dir.split(path.sep);
    for (let i = 0; i < parts.length; i++)
      copyOwnFiles(parts.slice(0, i).join(path.sep), ["package.json", "tsconfig.json"]);
    if (dir === "") return copyOwnFiles("", ["Pulumi.yaml", "package.json", "tsconfig.json"]);
    // Without node_modules and without stack config files a developer keeps there (the examples' `*.example.yaml` are the program's).
    fs.cpSync(path.join(repoRoot, dir), path.join(mirror, dir), {
      recursive: true,
      filter: (f) =>
        path.basename(f) !== "node_modules" &&
        (!/^Pulumi\.[^/]+\.yaml$/.test(path.basename(f)) || f.endsWith(".example.yaml")),
    });
    linkModules(dir);
  };
  copyFolder(rel);
  const main = /^main:\s*(\S+)\s*$/m.exec(fs.readFileSync(path.join(programDir, "Pulumi.yaml"), "utf8"))?.[1];
  if (main) {
    const target = path.resolve(programDir, main);
    const folder = path.relative(
      repoRoot,
      fs.statSync(target, { throwIfNoEntry: false })?.isDirectory() ? target : path.dirname(target),
    );
    const inRepo = !folder.startsWith("..") && !path.isAbsolute(folder);
    if (inRepo && (rel === "" || path.relative(rel, folder).startsWith(".."))) copyFolder(folder);
  }
  const shared = path.join(sharedCopies, treeHash(mirror));
  fs.mkdirSync(sharedCopies, { recursive: true });
  try {
    fs.renameSync(mirror, shared);
  } catch (err) {
    // That content is there already (from an earlier stack, or one made at the same moment).
    if (!fs.existsSync(path.join(shared, rel, "Pulumi.yaml"))) throw err;
    fs.rmSync(mirror, { recursive: true, force: true });
  }
  return path.join(shared, rel);
}

const sharedCopies = path.join(os.tmpdir(), "psu-programs");

/** A hash of a folder's names, file contents and link targets. */
function treeHash(root: string): string {
  const hash = createHash("sha256");
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const p = path.join(dir, e.name);
      hash.update(`${path.relative(root, p)}\0`);
      if (e.isSymbolicLink()) hash.update(`-> ${fs.readlinkSync(p)}\0`);
      else if (e.isDirectory()) walk(p);
      else hash.update(fs.readFileSync(p)).update("\0");
    }
  };
  walk(root);
  return hash.digest("hex").slice(0, 24);
}

export class TestStack {
  private constructor(
    readonly programDir: string,
    readonly stackName: string,
    readonly workDir: string,
    private readonly env: Record<string, string | undefined>,
    readonly passphrase: string,
    private readonly ownsWorkDir: boolean,
    private readonly nodeVersion: string | undefined,
    /** The Pulumi install this stack's commands run (scripts/toolchain.ts locateCli). */
    readonly cliDir: string,
  ) {}

  static async create(opts: StackOptions): Promise<TestStack> {
    const shared = opts.shareBackendWith;
    const workDir = shared?.workDir ?? fs.mkdtempSync(path.join(os.tmpdir(), "psu-stack-"));
    fs.mkdirSync(path.join(workDir, "backend"), { recursive: true });
    fs.mkdirSync(path.join(workDir, "home"), { recursive: true });
    const stackName = opts.stackName ?? `t${Date.now().toString(36)}${randomBytes(3).toString("hex")}`;
    const passphrase = shared?.passphrase ?? randomBytes(16).toString("hex");
    const stack = new TestStack(
      programCopy(path.resolve(opts.programDir), workDir),
      stackName,
      workDir,
      opts.env ?? {},
      passphrase,
      !shared,
      opts.nodeVersion,
      locateCli(opts.cliVersion),
    );
    await stack.must(["stack", "init", stackName]);
    await stack.setConfig(opts.config ?? {});
    // Secrets go in on standard input, as README tells users to set the token: never on the
    // command line (process lists), and one that begins with "-" is not read as a flag.
    for (const [k, v] of Object.entries(opts.secrets ?? {}))
      await stack.must(["config", "set", "--secret", k], { input: v });
    return stack;
  }

  /**
   * Sets plain config (`--path` keys) in one `config set-all`: each CLI command derives the
   * passphrase's key (PBKDF2, about 0.3 CPU-seconds), so one command per value costs the suite
   * minutes. A token set as plain config (the key spelt right or not, as tests of mistakes set it)
   * goes in on standard input all the same (--plaintext: the CLI refuses a value that looks like a
   * secret without it): no token is ever on a command line.
   */
  async setConfig(values: Record<string, string>): Promise<void> {
    const entries = Object.entries(values);
    const isToken = (k: string) => /acc?essTok/i.test(k);
    for (const [k, v] of entries.filter(([k]) => isToken(k)))
      await this.must(["config", "set", "--plaintext", "--path", k], { input: v });
    const plain = entries.filter(([k]) => !isToken(k));
    if (plain.length > 0)
      await this.must(["config", "set-all", "--path", ...plain.map(([k, v]) => `--plaintext=${k}=${v}`)]);
  }

  /** The offline environment every command of this stack runs with. */
  baseEnv(): NodeJS.ProcessEnv {
    const env: NodeJS.ProcessEnv = { ...process.env };
    // A developer's own storage settings must not leak into tests.
    delete env.STORAGE_ACCESS_TOKEN;
    delete env.STORAGE_API_URL;
    Object.assign(env, {
      PULUMI_BACKEND_URL: `file://${path.join(this.workDir, "backend")}`,
      PULUMI_HOME: path.join(this.workDir, "home"),
      PULUMI_CONFIG_PASSPHRASE: this.passphrase,
      PULUMI_SKIP_UPDATE_CHECK: "true",
      PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
      PULUMI_SKIP_CONFIRMATIONS: "true",
      PULUMI_STORAGE_USER_CLI_DIR: this.cliDir,
      PATH: userPath(this.nodeVersion, [], this.cliDir),
      NO_COLOR: "1",
    });
    return withEnv(env, this.env);
  }

  run(args: string[], opts: RunOptions = {}): Promise<RunResult> {
    const env = withEnv(this.baseEnv(), opts.env);
    const stackless = (args[0] === "stack" && args[1] === "init") || ["plugin", "install", "version"].includes(args[0]);
    const withStack = stackless ? args : [...args, "--stack", this.stackName];
    // Plain `pulumi`, as a user types it; it starts the language host from PATH. In a process
    // group of its own, as a terminal's foreground job: signalling -pid is a Ctrl-C.
    const child = spawn(path.join(this.cliDir, "pulumi"), [...withStack, "--color", "never"], {
      cwd: this.programDir,
      env,
      stdio: [opts.input === undefined ? "ignore" : "pipe", "pipe", "pipe"],
      detached: true,
    });
    if (opts.input !== undefined) child.stdin!.end(opts.input);
    let stdout = "";
    let stderr = "";
    let output = "";
    const onData = (which: "out" | "err") => (chunk: Buffer) => {
      const text = chunk.toString("utf8");
      if (which === "out") stdout += text;
      else stderr += text;
      output += text;
      opts.onOutput?.(output, child);
    };
    child.stdout!.on("data", onData("out"));
    child.stderr!.on("data", onData("err"));
    return new Promise((resolve) => child.on("close", (code) => resolve({ code: code ?? 1, stdout, stderr, output })));
  }

  async must(args: string[], opts?: RunOptions): Promise<RunResult> {
    const r = await this.run(args, opts);
    if (r.code !== 0) throw new Error(`pulumi ${args.join(" ")} exited ${r.code}:\n${r.output}`);
    return r;
  }

  up(extra: string[] = [], opts?: RunOptions) {
    return this.run(["up", "--yes", "--non-interactive", "--skip-preview", ...extra], opts);
  }
  preview(extra: string[] = [], opts?: RunOptions) {
    return this.run(["preview", "--non-interactive", ...extra], opts);
  }
  refresh(extra: string[] = [], opts?: RunOptions) {
    return this.run(["refresh", "--yes", "--non-interactive", "--skip-preview", ...extra], opts);
  }
  destroy(extra: string[] = [], opts?: RunOptions) {
    return this.run(["destroy", "--yes", "--non-interactive", "--skip-preview", ...extra], opts);
  }

  /** `pulumi stack export` parsed: the checkpoint as the engine holds it (secrets encrypted). */
  async exportState(showSecrets = false): Promise<{ deployment: { resources?: Json[] } }> {
    return JSON.parse((await this.must(["stack", "export", ...(showSecrets ? ["--show-secrets"] : [])])).stdout) as {
      deployment: { resources?: Json[] };
    };
  }

  /** The raw state file of the file:// backend, byte for byte. */
  stateFileText(): string {
    const found: string[] = [];
    const walk = (d: string) => {
      for (const e of fs.readdirSync(d, { withFileTypes: true })) {
        const p = path.join(d, e.name);
        if (e.isDirectory()) walk(p);
        else if (e.name === `${this.stackName}.json`) found.push(p);
      }
    };
    walk(path.join(this.workDir, "backend"));
    return found.map((f) => fs.readFileSync(f, "utf8")).join("\n");
  }

  async outputs(showSecrets = false): Promise<Json> {
    const r = await this.must(["stack", "output", "--json", ...(showSecrets ? ["--show-secrets"] : [])]);
    return JSON.parse(r.stdout) as Json;
  }

  /**
   * The deployment the file:// backend's checkpoint holds, read from the file: what `stack export`
   * prints, secrets encrypted, without starting the CLI (one command fewer for each look at state).
   */
  checkpoint(): { resources?: Json[]; pending_operations?: Json[] } {
    const text = this.stateFileText();
    if (!text) throw new Error(`no checkpoint of stack ${this.stackName} in ${path.join(this.workDir, "backend")}`);
    return (JSON.parse(text) as { checkpoint: { latest?: Json } }).checkpoint.latest ?? {};
  }

  /** Resources of a type in state: the checkpoint, or `stack export --show-secrets` to see secrets decrypted. */
  async resources(type = "pulumi-nodejs:dynamic/storage:StorageUser", showSecrets = false): Promise<Json[]> {
    const deployment = showSecrets ? (await this.exportState(true)).deployment : this.checkpoint();
    return (deployment.resources ?? []).filter((r) => r.type === type);
  }

  /**
   * Removes the stack (whatever its resources) and every file it made. A stack that owns its work
   * directory goes with it, backend and all; one sharing another's backend is removed by the CLI.
   */
  async dispose(): Promise<void> {
    if (!this.ownsWorkDir) await this.run(["stack", "rm", "--force", "--yes"]);
    fs.rmSync(path.join(this.programDir, `Pulumi.${this.stackName}.yaml`), { force: true });
    if (this.ownsWorkDir) fs.rmSync(this.workDir, { recursive: true, force: true });
  }
}
