// Pure rendering of an env map into the three formats apps commonly take, plus the one
// side effect: writing the file so that no other user can ever read it.
import * as fs from "node:fs";
import * as path from "node:path";

export type Format = "dotenv" | "json" | "k8s-secret";
export const formats: readonly Format[] = ["dotenv", "json", "k8s-secret"];

// Characters every .env reader (docker --env-file, compose, dotenv, systemd) takes literally unquoted.
const BARE = /^[A-Za-z0-9_.,:/@%+=-]*$/;

/** `KEY=value` lines. docker --env-file keeps quotes literally, so values are quoted only when they must be. */
export function dotenv(env: Record<string, string>): string {
  return Object.entries(env)
    .map(([k, v]) => {
      if (BARE.test(v)) return `${k}=${v}`;
      // Inside single quotes nothing is expanded; a quote or line break has no portable escape.
      if (/['\r\n]/.test(v))
        throw new Error(
          `${k} holds a quote or line break, which a .env file cannot carry portably: use format json or k8s-secret`,
        );
      return `${k}='${v}'`;
    })
    .join("\n")
    .concat("\n");
}

/** A Kubernetes Secret manifest; JSON-quoted strings are valid YAML scalars, so no YAML library is needed. */
export function k8sSecret(name: string, env: Record<string, string>): string {
  if (!/^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/.test(name))
    throw new Error(`secretName ${JSON.stringify(name)} is not a valid Kubernetes object name`);
  const data = Object.entries(env).map(([k, v]) => `  ${k}: ${JSON.stringify(v)}`);
  return [
    "apiVersion: v1",
    "kind: Secret",
    "metadata:",
    `  name: ${name}`,
    "type: Opaque",
    "stringData:",
    ...data,
    "",
  ].join("\n");
}

export function render(format: Format, env: Record<string, string>, secretName: string): string {
  switch (format) {
    case "dotenv":
      return dotenv(env);
    case "json":
      return `${JSON.stringify(env, null, 2)}\n`;
    case "k8s-secret":
      return k8sSecret(secretName, env);
  }
}

/** Created 0600 under a temporary name and renamed over the target: never readable by others, never half written. */
export function writePrivateFile(file: string, text: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  fs.rmSync(tmp, { force: true }); // a leftover would keep its own mode: create afresh, exclusively
  fs.writeFileSync(tmp, text, { mode: 0o600, flag: "wx" });
  fs.renameSync(tmp, file);
}
