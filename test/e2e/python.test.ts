// Python: examples/python, the tenants service of examples/go on the Automation API (inline
// programs: no Python language host) and the generated Python SDK (sdks.test.ts), installed and
// run as its README says with the plain CLI v3.274.1 and the packed package's executable plugin,
// settings from each stack's config only; examples/python-project, configured, unit-tested and
// type-checked (its `pulumi up` needs the Python language host). pip installs from the pinned
// wheels only (tools/toolchain/python.sh).
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { expect, test } from "vitest";
import { pins, repoRoot, packageVersion } from "../../scripts/toolchain";
import { hits, secretsOf, withEncodings } from "../support/secrets";
import { tenantsHarness } from "../support/tenants";
import { failed, ok } from "../support/cli-project";
import { errorSaid, reasons } from "../support/said";

const h = tenantsHarness("python", () => ({
  ...python(pins.pythonPulumi),
  PIP_NO_INDEX: "1",
  PIP_DISABLE_PIP_VERSION_CHECK: "1",
}));
const { setup, withToken } = h;

/** The cached Python environment of that `pulumi` release first on PATH, pip given its wheels. */
function python(version: string) {
  const dir = execFileSync("bash", [path.join(repoRoot, "tools/toolchain/python.sh"), version], {
    encoding: "utf8",
  }).trim();
  return {
    PATH: [path.join(dir, "venv", "bin"), h.path].join(path.delimiter),
    PIP_FIND_LINKS: path.join(dir, "wheels"),
  };
}

test("the install and preview run as written with the plain CLI and no language host, without a token, calling no API", async () => {
  const r = ok(await h.sh(h.blocks()[0]));
  // From the pinned wheels: the pulumi the tests pin, the SDK of this clone.
  const installed = /^Successfully installed (.*)$/m.exec(r.output)![1].split(" ");
  expect(installed).toEqual(
    expect.arrayContaining([`pulumi-${pins.pythonPulumi}`, `pulumi_storage_user-${packageVersion}`, "tenants-0.1.0"]),
  );
  expect(r.output).toMatch(/\+\s+storage-user:index:StorageUser storage create/);
  expect(h.api.requests).toHaveLength(0);
});

test("onboard, again, rotate, offboard: one user per tenant, envs handed over, 0 requests when nothing changes, users left named, no secret kept in clear", async () => {
  h.expectTenantsRun(ok(await h.sh(`${setup}${h.blocks()[1]}`, withToken)).output);
});

test("on the lowest pulumi the SDK accepts, the service installs, onboards a tenant with one request and offboards it", async () => {
  const pyproject = fs.readFileSync(path.join(repoRoot, "sdk", "python", "pyproject.toml"), "utf8");
  const lowest = /"pulumi>=([\d.]+),/.exec(pyproject)![1];
  expect(lowest).not.toBe(pins.pythonPulumi);
  fs.cpSync(path.join(repoRoot, "examples", "python"), path.join(h.work, "examples", "python-lowest"), {
    recursive: true,
  });
  const before = h.api.requests.length;
  const install = "python3 -m venv .venv && . .venv/bin/activate && pip install ../../sdk/python .";
  const showVersion = `python -c 'import importlib.metadata as m; print("pulumi", m.version("pulumi"))'`;
  const r = ok(
    await h.sh(
      `${setup}cd examples/python-lowest && ${install} && ${showVersion} && tenants onboard lowest >/dev/null && tenants offboard lowest`,
      { ...withToken, ...python(lowest) },
    ),
  );
  expect(r.output).toContain(`pulumi ${lowest}\n`);
  expect(h.api.requests.length - before).toBe(1);
  const user = h.api.users.at(-1)!;
  expect(user.Name).toBe("lowest-storage");
  expect(r.output).toContain(h.left(user));
});

test("every output is secret in the Python program and in the stack outputs exactly where the schema says", async () => {
  const before = h.api.requests.length;
  const schema = JSON.parse(
    execFileSync(
      "pulumi",
      ["package", "get-schema", path.join(h.example(), "plugins/node_modules/.bin/pulumi-resource-storage-user")],
      { env: h.env, encoding: "utf8" },
    ),
  );
  const props = schema.resources["storage-user:index:StorageUser"].properties as Record<string, { secret?: boolean }>;
  const names = Object.keys(props);
  const script = path.join(repoRoot, "test/programs/python/outputs.py");
  const r = ok(
    await h.sh(`${setup}cd examples/python && . .venv/bin/activate && python ${script} ${names.join(" ")}`, {
      ...withToken,
      TENANTS_WORK_DIR: path.join(h.work, "outputs-workspace"),
    }),
  );
  expect(h.api.requests.length - before).toBe(1);
  const seen = JSON.parse(r.output.trim().split("\n").pop()!) as Record<
    string,
    { program: boolean; stack: boolean | null }
  >;
  for (const name of names) {
    const secret = props[name].secret === true;
    expect([name, seen[name].program], "Output.is_secret()").toEqual([name, secret]);
    // An output with no value (connection, for the default one) is no stack output.
    if (seen[name].stack !== null) expect([name, seen[name].stack], "OutputValue.secret").toEqual([name, secret]);
  }
  expect(names.filter((n) => seen[n].stack !== null).length).toBeGreaterThan(15);
  expect(hits([["the script's output", r.output]], withEncodings(secretsOf(h.api.users.at(-1)!)))).toEqual([]);
});

test("TENANTS_ROTATE_AFTER=90d: the clock moved past 90 days, one onboard rotates the tenant's user (rotate_after) and hands over its new env; before and after, none is sent", async () => {
  await h.expectScheduledRotation("cd examples/python && . .venv/bin/activate && tenants");
});

test("bad input, a token set without --secret (in the default workspace), and another release's SDK are refused with the TypeScript messages, before any request; offboarding after passes; the token in no file but the update history", async () => {
  // Copies of the service, as a user would change it (plain.py: the token plain, in the default workspace, a temp
  // directory with main: the service's cwd, the plugin on PATH); then the SDK of a release 9.9.9 installed in its place.
  const variant = path.join(h.work, "variant");
  fs.mkdirSync(variant);
  const edited = (name: string, from: string, to: string) =>
    h.edit(path.join(h.example(), "tenants.py"), from, to, path.join(variant, name));
  edited("plain.py", '"set", "--secret", "--stack"', '"set", "--plaintext", "--stack"');
  h.edit(path.join(variant, "plain.py"), "opts=auto.LocalWorkspaceOptions(work_dir=str(self.work_dir)),", "");
  edited("bad.py", 'else f"{tenant}-{suffix}"', 'else f" {tenant}-{suffix}"');
  const sdk = path.join(h.work, "sdk", "python-9.9.9");
  fs.cpSync(path.join(h.work, "sdk", "python"), sdk, { recursive: true });
  h.edit(path.join(sdk, "pyproject.toml"), `version = "${packageVersion}"`, 'version = "9.9.9"');
  const service = (command: string) =>
    h.sh(
      `${setup}export PULUMI_BACKEND_URL="file://$PWD/variant-state" TENANTS_WORK_DIR="$PWD/variant-workspace"\nmkdir -p variant-state && cd examples/python && . .venv/bin/activate && ${command}`,
      { ...withToken, TMPDIR: h.work },
    );
  const onPath = 'PATH="$STORAGE_USER_PLUGIN_DIR:$PATH" python ../../variant/plain.py';
  const requests = h.api.requests.length;
  const bad = failed(await service("python ../../variant/bad.py preview bad"));
  expect(bad.output).toContain(
    `storage-user:index:StorageUser resource 'storage': property userName value { bad-storage} has a problem: ${reasons.userNameSpaces("bad-storage")}`,
  );
  const plain = failed(await service(`${onPath} onboard plain`));
  expect(plain.output).toContain(h.notSecret);
  const offboard = ok(await service(`${onPath} offboard plain`));
  ok(await service(`pip install --quiet --no-deps ${sdk}`));
  const other = failed(await service("tenants onboard other"));
  expect(other.output).toContain(errorSaid("VERSION_MISMATCH", { wanted: "9.9.9", running: packageVersion }));
  expect(h.api.requests.length).toBe(requests);
  h.expectNoTokenInVariantState(
    [/\/tenant-plain\.json$/, /\/tenant-other\.json$/],
    bad.output + plain.output + offboard.output + other.output,
  );
});

test("examples/python-project: installed and configured as its README says; its unit tests see the credentials secret under pulumi_storage_user.testing's mocks, not Pulumi's own; mypy --strict passes", async () => {
  await h.configureProject();
  const r = ok(await h.sh(h.blocks("python-project")[2]));
  expect(r.output).toMatch(/^Ran 3 tests in [\d.]+s\n\nOK\n/m);
  expect(r.output).toContain("Success: no issues found in 3 source files\n");
  const tests = path.join(h.work, "examples", "python-project", "test_program.py");
  h.edit(tests, "from pulumi_storage_user.testing import set_mocks", "from pulumi.runtime import set_mocks");
  const plain = failed(await h.sh("cd examples/python-project && . venv/bin/activate && python -m unittest"));
  expect(plain.output).toContain("AssertionError: Lists differ: [False, False, False] != [True, True, True]");
  expect(plain.output).toMatch(/^FAILED \(failures=1\)$/m);
});
