/**
 * What Run and RunPlugin share, as the Go host has them (pulumi/pulumi v3.250.0 `main.go`): the
 * runtime options of Pulumi.yaml or PulumiPolicy.yaml, `nodeargs` split like a shell, and the
 * run script resolved from the program's own node_modules.
 */
import { execFile } from "node:child_process";

export interface NodeOptions {
  typescript: boolean;
  tsconfig: string;
  nodeargs: string;
  packagemanager: unknown;
}

/** `parseOptions`: the runtime options of Pulumi.yaml (`runtime.options`). */
export function parseOptions(info: any): NodeOptions {
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
    packagemanager: o.packagemanager,
  };
}

/** shlex.Split as the Go host applies it to `nodeargs`: whitespace-separated, quotes and backslashes honoured. */
export function splitArgs(s: string): string[] {
  const out: string[] = [];
  let cur: string | undefined;
  let quote: '"' | "'" | undefined;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (quote) {
      if (c === quote) quote = undefined;
      else if (c === "\\" && quote === '"' && i + 1 < s.length) cur += s[++i];
      else cur += c;
    } else if (/\s/.test(c)) {
      if (cur !== undefined) out.push(cur);
      cur = undefined;
    } else if (c === '"' || c === "'") {
      quote = c;
      cur ??= "";
    } else if (c === "\\" && i + 1 < s.length) {
      cur = (cur ?? "") + s[++i];
    } else {
      cur = (cur ?? "") + c;
    }
  }
  if (quote) throw new Error("EOF found when expecting closing quote");
  if (cur !== undefined) out.push(cur);
  return out;
}

/** `locateModule`: resolve the run script from the program directory with the program's own Node. */
export function locateModule(node: string, mod: string, programDir: string, isPlugin = false): Promise<string> {
  const install = isPlugin ? `npm install in ${programDir}` : "pulumi install";
  const script = `try { console.log(require.resolve(${JSON.stringify(mod)})); } catch (error) { if (error.code === 'MODULE_NOT_FOUND') { console.error(${JSON.stringify(`It looks like the Pulumi SDK has not been installed. Have you run ${install}?`)}) } else { console.error(error.message); } process.exit(1); }`;
  return new Promise((resolve, reject) =>
    execFile(node, ["-e", script], { cwd: programDir }, (err, stdout, stderr) =>
      err ? reject(new Error(stderr || err.message)) : resolve(stdout.trim()),
    ),
  );
}
