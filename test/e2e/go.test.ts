// Go: examples/go, a tenant-onboarding service on the Automation API (inline programs: no Go
// language host) on the generated SDK (sdks.test.ts), built and run as its README says with the
// plain CLI v3.274.1 and the packed package's executable plugin, settings from each stack's config only;
// examples/go-project, vetted, built and configured (its `pulumi up` needs the Go language host).
import * as fs from "node:fs";
import * as path from "node:path";
import { expect, test } from "vitest";
import { builtCli, nodeBinDir, pins, repoRoot, packageVersion } from "../../scripts/toolchain";
import { tenantsHarness } from "../support/tenants";
import { failed, ok } from "../support/cli-project";
import { errorSaid } from "../support/said";

const h = tenantsHarness("go");

test("the build, install and preview run as written with the plain CLI and no language host, without a token, calling no API", async () => {
  const r = ok(await h.sh(h.blocks()[0]));
  expect(r.output).toMatch(/\+\s+storage-user:index:StorageUser storage create/);
  expect(h.api.requests).toHaveLength(0);
});

test("onboard, again, rotate, offboard: one user per tenant, envs handed over, 0 requests when nothing changes, users left named, no secret kept in clear", async () => {
  const r = ok(await h.sh(`${h.setup}${h.blocks()[1]}`, h.withToken));
  h.expectTenantsRun(r.output);
  // The Go program's outputs as stored, of a tenant still there: the credentials secret, the ids plain.
  const onboard = "cd examples/go && ./tenants onboard initech >/dev/null && cd workspace";
  const stored = ok(
    await h.sh(`${h.setup}${onboard} && pulumi stack output --stack tenant-initech --json`, h.withToken),
  ).output;
  expect(JSON.parse(stored.slice(stored.indexOf("{")))).toEqual({ userId: h.api.users[3].Id, env: "[secret]" });
});

test("a service on another release's SDK, newer or older, is refused; one that sets the token without --secret in the default workspace too, and offboards after; no API call, the token in no file but the update history", async () => {
  // Copies of the example, as a user would change them: built on the SDK of a release 9.9.9, then 0.0.1; then setting
  // the token plain in Go's default inline project (a temp workspace; main: the service's cwd), the plugin on PATH.
  const variant = path.join(h.work, "examples", "go-variant");
  const sdk = path.join(h.work, "sdk", "go-variant");
  fs.cpSync(path.join(repoRoot, "examples", "go"), variant, { recursive: true });
  fs.cpSync(path.join(repoRoot, "sdk", "go"), sdk, { recursive: true });
  h.edit(path.join(variant, "go.mod"), "=> ../../sdk/go", "=> ../../sdk/go-variant");
  const build = async (from: string, to: string, binary: string) => {
    h.edit(path.join(sdk, "storageuser", "internal", "pulumiUtilities.go"), `"${from}"`, `"${to}"`);
    ok(await h.sh(`cd examples/go-variant && go build -o ${binary} .`));
  };
  await build(packageVersion, "9.9.9", "tenants-9.9.9");
  await build("9.9.9", "0.0.1", "tenants-0.0.1");
  h.edit(path.join(variant, "main.go"), '"set", "--secret", "--stack"', '"set", "--plaintext", "--stack"');
  h.edit(path.join(variant, "main.go"), "proj := workspace.Project{", "_ = workspace.Project{");
  h.edit(path.join(variant, "main.go"), ", auto.Project(proj), auto.WorkDir(s.workDir))", ")");
  await build("0.0.1", packageVersion, "tenants-plain");
  // Each CLI tested (the plugin's CheckConfig and Configure are the engine's calls), on a backend of its own.
  const run = (command: string, cli: string) =>
    h.sh(
      `export STORAGE_USER_PLUGIN_DIR="$PWD/examples/go/plugins/node_modules/pulumi-storage-user/bin" PULUMI_BACKEND_URL="file://$PWD/variant-state/${cli}" TENANTS_WORK_DIR="$PWD/variant-workspace/${cli}"\nmkdir -p variant-state/${cli} && PATH="$STORAGE_USER_PLUGIN_DIR:$PATH" examples/go-variant/tenants-${command}`,
      { ...h.withToken, TMPDIR: h.work, PATH: [builtCli(cli), nodeBinDir(), process.env.PATH].join(path.delimiter) },
    );
  const requests = h.api.requests.length;
  let said = "";
  for (const cli of [pins.cli, pins.cliNewest]) {
    const plain = failed(await run("plain onboard plain", cli));
    expect(plain.output).toContain(h.notSecret);
    said += plain.output + ok(await run("plain offboard plain", cli)).output;
    for (const [version, tenant] of Object.entries({ "9.9.9": "newer", "0.0.1": "older" })) {
      const other = failed(await run(`${version} onboard ${tenant}`, cli));
      expect(other.output).toContain(errorSaid("VERSION_MISMATCH", { wanted: version, running: packageVersion }));
      said += other.output;
    }
  }
  expect(h.api.requests.length).toBe(requests);
  const stacks = [pins.cli, pins.cliNewest].flatMap((cli) =>
    ["plain", "newer", "older"].map((t) => new RegExp(`^${cli}/.*/tenant-${t}\\.json$`)),
  );
  h.expectNoTokenInVariantState(stacks, said);
});

test("examples/go-project: vetted, built, installed and its stack configured as its README says, the token encrypted", async () => {
  await h.configureProject();
});

test("TENANTS_ROTATE_AFTER=90d: the clock moved past 90 days, one onboard rotates the tenant's user (RotateAfter) and hands over its new env; before and after, none is sent", async () => {
  await h.expectScheduledRotation("cd examples/go && ./tenants");
});
