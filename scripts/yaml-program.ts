/**
 * Pulumi YAML programs of N users for the bench and the tests: StorageUser through the package's
 * executable plugin named in `plugins.providers` (docs/yaml.md), its settings the stack's
 * `storage-user:` config. YAML has no loops, so each count is written out.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { installConsumer } from "./consumer";
import { repoRoot, userPath } from "./toolchain";

let hostDir: string | undefined;
/** The directory of the real YAML host (tools/yaml-host). */
export function yamlHostDir(): string {
  hostDir ??= execFileSync("bash", [path.join(repoRoot, "tools", "yaml-host", "build.sh")], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  }).trim();
  return hostDir;
}
/** PATH with the real YAML host after the Pulumi install and Node.js, for a TestStack's `env`. */
export function yamlPath(): string {
  return userPath(undefined, [yamlHostDir()]);
}

export interface YamlUsers {
  count: number;
  /** Each userName is `<prefix>-<i>` unless `auto` (generated names). */
  prefix: string;
  auto?: boolean;
  /** Each user's rotateAfter (e.g. "90d"); the stack then exports `credentials` as examples/app-config reads them. */
  rotateAfter?: string;
  /** Resources are `<resource><i>` (default `<prefix>-<i>`), in project `project` (default yaml-users). */
  resource?: string;
  project?: string;
  /**
   * The plugin's directory, relative to the program (default `plugins/`, where docs/yaml.md installs the package);
   * `false`: no `plugins` block, the plugin being installed (`pulumi plugin install`) as a release's users install it.
   */
  plugin?: string | false;
  /** Another plugin's resource type instead (the bench's floor): [plugin name, type token]. */
  noop?: [string, string];
}

/** Pulumi.yaml's text: `count` resources; outputs only with `rotateAfter`. */
export function yamlUsersText(o: YamlUsers): string {
  const [name, type] = o.noop ?? ["storage-user", "storage-user:index:StorageUser"];
  const plugin = o.plugin ?? "./plugins/node_modules/pulumi-storage-user/bin";
  const rotate = o.rotateAfter ? `      rotateAfter: ${o.rotateAfter}\n` : "";
  const props = (i: number) =>
    o.auto
      ? rotate && `    properties:\n${rotate}`
      : `    properties:\n      userName: ${o.prefix}-${i}\n${o.noop ? "      persistPassword: false\n" : ""}${rotate}`;
  const names = Array.from({ length: o.count }, (_, i) => `${o.resource ?? `${o.prefix}-`}${i}`);
  const resources = names.map((n, i) => `  ${n}:\n    type: ${type}\n${props(i)}`);
  const outputs = o.rotateAfter
    ? `outputs:\n  credentials:\n${names.map((n) => `    ${n}:\n      env: \${${n}.env}\n`).join("")}`
    : "";
  const plugins = plugin === false ? "" : `plugins:\n  providers:\n    - name: ${name}\n      path: ${plugin}\n`;
  return `name: ${o.project ?? "yaml-users"}\nruntime: yaml\n${plugins}resources:\n${resources.join("")}${outputs}`;
}

/**
 * The program in a folder of its own, named by its content, with `plugins/node_modules` the test
 * run's install of the packed package (scripts/consumer.ts), as docs/yaml.md installs it.
 */
export function yamlUsersProgram(o: YamlUsers): string {
  const [text, modules] = [yamlUsersText(o), path.join(installConsumer(), "node_modules")];
  const hash = createHash("sha256").update(`${modules}\n${text}`).digest("hex").slice(0, 16);
  const dir = path.join(os.tmpdir(), "psu-programs", `yaml-${hash}`);
  if (!fs.existsSync(path.join(dir, "Pulumi.yaml"))) {
    fs.mkdirSync(path.join(dir, "plugins"), { recursive: true });
    fs.rmSync(path.join(dir, "plugins", "node_modules"), { force: true });
    fs.symlinkSync(modules, path.join(dir, "plugins", "node_modules"));
    fs.writeFileSync(path.join(dir, "Pulumi.yaml"), text);
  }
  return dir;
}
