// The Go and Python SDKs: what tools/sdkgen makes of the installed plugin's schema, committed in
// sdk/go and sdk/python; and the schema declares every output of the TypeScript resource, secret
// where it is secret there. The services on them: go.test.ts and python.test.ts.
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import { createRequire } from "node:module";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { installConsumer } from "../../scripts/consumer";
import { builtCli, nodeBinDir, pins, repoRoot, packageVersion } from "../../scripts/toolchain";
import { filesUnder } from "../support/secrets";

const typeToken = "storage-user:index:StorageUser";
let work: string;
let consumer: string;
let schema: any;

beforeAll(() => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), "sdks-"));
  consumer = installConsumer();
  // The schema as the CLI gets it: GetSchema of the installed package's executable plugin.
  const plugin = path.join(consumer, "node_modules", "pulumi-storage-user", "bin", "pulumi-resource-storage-user");
  expect(fs.statSync(plugin).mode & 0o111, "the plugin is executable as installed").not.toBe(0);
  const env = {
    ...process.env,
    PATH: [builtCli(pins.cliNewest), nodeBinDir(), process.env.PATH].join(path.delimiter),
    PULUMI_HOME: path.join(work, "home"),
    PULUMI_SKIP_UPDATE_CHECK: "true",
  };
  schema = JSON.parse(execFileSync("pulumi", ["package", "get-schema", plugin], { env, encoding: "utf8" }));
});
afterAll(() => {
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

// Each SDK: its directory in the clone, the file a description of userId lands in.
const sdks = [
  { language: "go", dir: "sdk/go/storageuser", resourceFile: "storageUser.go" },
  { language: "python", dir: "sdk/python", resourceFile: "pulumi_storage_user/storage_user.py" },
];

test.each(sdks)(
  "$dir is exactly what tools/sdkgen generates from the schema (regenerate and commit when this fails); an edit shows",
  ({ language, dir, resourceFile }) => {
    const gen = execFileSync("bash", [path.join(repoRoot, "tools/sdkgen/build.sh")], { encoding: "utf8" }).trim();
    const tree = (d: string) => new Map(filesUnder(d).map(([f]) => [path.relative(d, f), fs.readFileSync(f, "utf8")]));
    // The clone's files but those git ignores: `pip install sdk/python` builds in the tree (build/, *.egg-info).
    const listed = execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard", "-z", "--", dir], {
      cwd: repoRoot,
      encoding: "utf8",
    });
    const committed = new Map(
      listed
        .split("\0")
        .filter(Boolean)
        .map((f) => [path.relative(dir, f), fs.readFileSync(path.join(repoRoot, f), "utf8")]),
    );
    /** The files that differ from the committed SDK in what the generator makes of `spec`. */
    const differences = (spec: object, out: string) => {
      fs.writeFileSync(`${out}.json`, JSON.stringify(spec));
      execFileSync(gen, [language, `${out}.json`, out], { stdio: "ignore" });
      const made = tree(out);
      return [...new Set([...committed.keys(), ...made.keys()])].filter((f) => committed.get(f) !== made.get(f));
    };
    expect(committed.size).toBeGreaterThan(5);
    expect(differences(schema, path.join(work, `${language}-generated`))).toEqual([]);
    const edited = structuredClone(schema);
    edited.resources[typeToken].properties.userId.description = "Edited.";
    expect(differences(edited, path.join(work, `${language}-edited`))).toEqual([resourceFile]);
  },
);

test("the SDKs' names and versions are the schema's and the package's", () => {
  expect(schema.version).toBe(packageVersion);
  // Go: the module path and package name are the schema's language.go.
  const modulePath = /^module (\S+)$/m.exec(fs.readFileSync(path.join(repoRoot, "sdk", "go", "go.mod"), "utf8"))![1];
  expect(schema.language.go.importBasePath).toBe(`${modulePath}/storageuser`);
  // Python: the distribution is named and versioned as installed, and asks for a pulumi 3 the tests install.
  const pyproject = fs.readFileSync(path.join(repoRoot, "sdk", "python", "pyproject.toml"), "utf8");
  expect(pyproject).toMatch(new RegExp(`^\\s*name = "${schema.language.python.packageName}"$`, "m"));
  expect(pyproject).toMatch(new RegExp(`^\\s*version = "${packageVersion}"$`, "m"));
  const lowest = /"pulumi>=([\d.]+),<4\.0\.0"/.exec(pyproject)![1];
  expect(pins.pythonPulumi.localeCompare(lowest, undefined, { numeric: true })).toBeGreaterThanOrEqual(0);
  // docs/python.md names the lowest pulumi the SDK accepts.
  expect(fs.readFileSync(path.join(repoRoot, "docs", "python.md"), "utf8")).toContain(`pulumi>=${lowest}`);
});

test("the schema declares every output of the TypeScript StorageUser, secret exactly where it is secret there", async () => {
  // The installed package and its @pulumi/pulumi, under the package's own mocks.
  const load = createRequire(path.join(consumer, "node_modules", "x.js"));
  const pulumi = load("@pulumi/pulumi") as typeof import("@pulumi/pulumi");
  await pulumi.runtime.setMocks(load("pulumi-storage-user/testing").storageUserMocks(), "project", "stack", false);
  const user = new (load("pulumi-storage-user").StorageUser)("app");
  // Its Outputs, own and derived (getters on its class), but the engine's own, the internal `__` ones and the
  // state's JSON text (`account`, `secrets`), which the schema leaves out.
  const names = new Set<string>();
  for (let o = user; o && o !== Object.prototype; o = Object.getPrototypeOf(o))
    Object.getOwnPropertyNames(o).forEach((n) => names.add(n));
  const outputs = [...names].filter(
    (k) => !/^(urn|id|__.*|account|secrets)$/.test(k) && pulumi.Output.isInstance(user[k]),
  );
  expect(outputs.length).toBeGreaterThan(15);
  const props = schema.resources[typeToken].properties as Record<string, { secret?: boolean; type?: string }>;
  expect(outputs.filter((k) => !(k in props))).toEqual([]);
  const secretInTs: string[] = [];
  for (const k of outputs) if (await pulumi.isSecret(user[k])) secretInTs.push(k);
  const secretInSchema = Object.keys(props).filter((k) => props[k].secret);
  expect(secretInSchema.sort()).toEqual(secretInTs.sort());
  // The spec's ProgressPercent is a number.
  expect(schema.types["storage-user:index:Task"].properties.progressPercent.type).toBe("number");
});
