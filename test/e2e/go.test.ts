// Go: examples/go, a tenant-onboarding service on the Automation API (inline programs: no Go
// language host) on the generated SDK (sdks.test.ts), built and run as its README says with the
// plain CLI v3.274.1 and the packed package's executable plugin, settings from each stack's config only;
// examples/go-project, vetted, built and configured (its `pulumi up` needs the Go language host).
import * as fs from "node:fs";
import * as path from "node:path";
import { expect, test } from "vitest";
import { builtCli, nodeBinDir, pins, repoRoot, packageVersion } from "../../scripts/toolchain";
import { tenantsHarness } from "../support/tenants";
import { ok } from "../support/cli-project";

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

test("a service that sets the token without --secret, or is built on another release's SDK, is refused before the engine records anything; no token in the backend", async () => {
  // Copies of the example, as a user would change it: the token set plain; the SDK of a release 9.9.9.
  const variant = path.join(h.work, "examples", "go-variant");
  const sdk = path.join(h.work, "sdk", "go-variant");
  fs.cpSync(path.join(repoRoot, "examples", "go"), variant, { recursive: true });
  fs.cpSync(path.join(repoRoot, "sdk", "go"), sdk, { recursive: true });
  h.edit(path.join(variant, "main.go"), '"set", "--secret", "--stack"', '"set", "--plaintext", "--stack"');
  ok(await h.sh("cd examples/go-variant && go build -o tenants-plain ."));
  h.edit(path.join(sdk, "storageuser", "internal", "pulumiUtilities.go"), `"${packageVersion}"`, '"9.9.9"');
  h.edit(path.join(variant, "go.mod"), "=> ../../sdk/go", "=> ../../sdk/go-variant");
  ok(await h.sh("cd examples/go-variant && go build -o tenants-other ."));
  // Each CLI tested (the plugin's CheckConfig is the engine's call), on a backend of its own.
  const run = (binary: string, tenant: string, cli: string) =>
    h.sh(
      `export STORAGE_USER_PLUGIN_DIR="$PWD/examples/go/plugins/node_modules/pulumi-storage-user/bin" PULUMI_BACKEND_URL="file://$PWD/variant-state/${cli}" TENANTS_WORK_DIR="$PWD/variant-workspace/${cli}"\nmkdir -p variant-state/${cli} && examples/go-variant/${binary} onboard ${tenant}`,
      { ...h.withToken, PATH: [builtCli(cli), nodeBinDir(), process.env.PATH].join(path.delimiter) },
    );
  const requests = h.api.requests.length;
  let said = "";
  for (const cli of [pins.cli, pins.cliNewest]) {
    const plain = await run("tenants-plain", "plain", cli);
    expect(plain.code).not.toBe(0);
    expect(plain.output).toContain(
      "[CONFIG_NOT_SECRET] storage-user:accessToken is set in plain text in the stack configuration (Pulumi.tenant-plain.yaml)",
    );
    const other = await run("tenants-other", "other", cli);
    expect(other.code).not.toBe(0);
    expect(other.output).toContain(
      `[VERSION_MISMATCH] the program's SDK asks for the storage-user plugin v9.9.9, but the plugin in plugins.providers is v${packageVersion}`,
    );
    said += plain.output + other.output;
  }
  expect(h.api.requests.length).toBe(requests);
  const stacks = [pins.cli, pins.cliNewest].flatMap((cli) =>
    ["plain", "other"].map((t) => `^${cli}/.*/tenant-${t}\\.json$`),
  );
  h.expectNoTokenInVariantState(
    stacks.map((s) => new RegExp(s)),
    said,
  );
});

test("examples/go-project: vetted, built, installed and its stack configured as its README says, the token encrypted", async () => {
  await h.configureProject();
});
