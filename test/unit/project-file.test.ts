// The one reader of project and stack config files (provider/project-file.ts), on the forms people
// write: quoted or not, trailing comments, Pulumi.yml, stackConfigDir, nested keys of the same name.
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, expect, test } from "vitest";
import { readProjectFile, stackConfigFile } from "../../provider/project-file";

let dir: string;
const project = (text: string, name = "Pulumi.yaml") => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "psu-project-"));
  fs.writeFileSync(path.join(dir, name), text);
  return dir;
};
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

test.each([
  ["plain", "name: infra\nmain: dist/\n", "infra", "dist/"],
  ["double-quoted, comments", 'name: "infra"  # the project\nmain: "src/app dir" # where\n', "infra", "src/app dir"],
  ["single-quoted", "name: 'infra'\nmain: 'x#y'\n", "infra", "x#y"],
  ["nested keys of the same name ignored", "name: infra\nruntime:\n  name: x\n  main: nested\n", "infra", undefined],
  ["an empty value is absent", "name: infra\nmain:\n", "infra", undefined],
])("%s", (_label, text, name, main) => {
  const file = path.join(project(text), "Pulumi.yaml");
  expect(readProjectFile(dir)).toEqual({ file, name, main, stackConfigDir: undefined });
});

test("Pulumi.yml is read when there is no Pulumi.yaml; no project file gives undefined", () => {
  expect(readProjectFile(project("name: other\n", "Pulumi.yml"))?.name).toBe("other");
  fs.rmSync(path.join(dir, "Pulumi.yml"));
  expect(readProjectFile(dir)).toBeUndefined();
});

test("the stack config file honours stackConfigDir and a qualified stack name", () => {
  project("name: infra\nstackConfigDir: config # per environment\n");
  expect(stackConfigFile(dir, "org/infra/dev")).toBeUndefined();
  fs.mkdirSync(path.join(dir, "config"));
  fs.writeFileSync(path.join(dir, "config", "Pulumi.dev.yaml"), "config: {}\n");
  expect(stackConfigFile(dir, "org/infra/dev")).toBe(path.join(dir, "config", "Pulumi.dev.yaml"));
  // Beside the project file it is not the stack's file when stackConfigDir points elsewhere.
  fs.writeFileSync(path.join(dir, "Pulumi.prod.yaml"), "config: {}\n");
  expect(stackConfigFile(dir, "prod")).toBeUndefined();
});
