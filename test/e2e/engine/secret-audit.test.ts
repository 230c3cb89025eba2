// Secret audit: one stack of the root program through preview, up, refresh and destroy with the
// real CLI, in normal and --debug output, then a search of everything the stack left behind for
// the access token and every credential the server issued. Required: 0 hits. The search is shown
// not to be vacuous: `pulumi stack output --show-secrets` does print the credentials.
//
// Searched: every captured CLI output (stdout and stderr), the raw state file after up and after
// refresh, `pulumi stack export`, every file the file backend and PULUMI_HOME hold (history and
// backups included), the stack's config file, and the serialized provider stored in state.
// Error paths (400, 500 recorded as unconfirmed, a wrong token) must not echo the token or the
// request headers either. What the engine's own verbose logging (-v=9) prints is the engine's,
// outside the provider's control: bench/verbose-logs.ts reports it, docs/testing.md has the findings.
import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { ApiServer, startApiServer } from "../../../server/api-server";
import { RunResult, TestStack } from "../../../scripts/stack";
import { onNewestCli } from "../../support/cli-project";
import { filesUnder, hits as hitsIn, secretsOf, withEncodings } from "../../support/secrets";

/** Every (needle, place) pair found: must be empty. */
const hits = (places: Array<[string, string]>, list = needles()) => hitsIn(places, list);

const token = "audit-token-7Hq2mZ9xW4vR8kLp";
const TYPE = "pulumi-nodejs:dynamic/storage:StorageUser";
let api: ApiServer;
let stack: TestStack;
/** Every CLI output of the main stack, by label. */
const outputs: Array<[string, RunResult]> = [];
/** Raw state file snapshots, by label. */
const stateFiles: Array<[string, string]> = [];

function needles(): Array<[string, string]> {
  return withEncodings([["access token", token], ...api.users.flatMap(secretsOf)]);
}

async function step(label: string, run: Promise<RunResult>): Promise<RunResult> {
  const r = await run;
  outputs.push([label, r]);
  expect(r.code, `${label}\n${r.output}`).toBe(0);
  return r;
}

beforeAll(async () => {
  api = await startApiServer({ token });
  stack = await TestStack.create({
    programDir: ".",
    config: { "storage:baseUrl": api.url, "users[0].name": "audit-a", "users[0].userName": "audit-a" },
    secrets: { "storage:accessToken": token },
  });
});
afterAll(async () => {
  await stack?.dispose();
  await api?.close();
});

describe("one stack through preview, up, refresh and destroy", () => {
  // On the newest CLI the plain preview and refresh are lifecycle's; here the --debug ones, whose
  // output holds the plain one's messages, are audited.
  test("preview (normal and --debug) needs no request", async () => {
    if (!onNewestCli) await step("preview", stack.preview());
    await step("preview --debug", stack.preview(["--debug"]));
    expect(api.requests).toHaveLength(0);
  });

  test("up (--debug for one user, normal for a second) creates both", async () => {
    await step("up --debug (audit-a)", stack.up(["--debug"]));
    await stack.setConfig({ "users[1].name": "audit-b", "users[1].userName": "audit-b" });
    await step("up (audit-b)", stack.up());
    expect(api.users.map((u) => u.Name)).toEqual(["audit-a", "audit-b"]);
    stateFiles.push(["state file after up", stack.stateFileText()]);
    await step("preview after up --debug", stack.preview(["--debug", "--diff"]));
  });

  test("the credentials are in the stack: `stack output --show-secrets` shows them (the search is not vacuous)", async () => {
    const shown = await step("stack output --show-secrets", stack.run(["stack", "output", "--json", "--show-secrets"]));
    outputs.pop(); // showing them is its job: not part of the audit
    for (const [what, value] of api.users.flatMap(secretsOf)) expect(shown.stdout, what).toContain(value);
    const creds = JSON.parse(shown.stdout).credentials;
    expect(creds["audit-a"].s3.secretKey).toBe(api.users[0].S3Connection.SecretKey);
  });

  test("refresh (normal and --debug)", async () => {
    if (!onNewestCli) await step("refresh", stack.refresh());
    await step("refresh --debug", stack.refresh(["--debug"]));
    stateFiles.push(["state file after refresh", stack.stateFileText()]);
    expect(api.createAttempts).toBe(2);
  });

  test("stack output and stack export mask or encrypt every credential", async () => {
    await step("stack output", stack.run(["stack", "output", "--json"]));
    await step("stack output credentials", stack.run(["stack", "output", "credentials"]));
    const exported = await step("stack export", stack.run(["stack", "export"]));
    const resources = JSON.parse(exported.stdout).deployment.resources.filter((r: any) => r.type === TYPE);
    expect(resources).toHaveLength(2);
    for (const r of resources) {
      // One encrypted object holds every credential; the secret outputs are derived from it
      // (and the plain endpoints) in the program and never stored.
      expect(r.outputs.secrets, `${r.urn} secrets`).toHaveProperty(
        "4dabf18193072939515e22adb298388d",
        "1b47061264138c4ac30d75fd1eb44270",
      );
      for (const k of ["credentials", "name", "password", "swift", "s3", "ftp", "env", "ftpUrl"])
        expect(r.outputs, `${r.urn} ${k}`).not.toHaveProperty(k);
    }
  });

  test("the serialized provider captures nothing: no token, no credential, no URL", async () => {
    const resources = (await stack.resources(TYPE)) as Array<Record<string, any>>;
    const providers = resources.map((r) => String(r.inputs.__provider));
    expect(providers.every((p) => p.includes('require("pulumi-storage-user/dist/provider/runtime'))).toBe(true);
    expect(hits(providers.map((p, i) => [`__provider of ${resources[i].urn}`, p]))).toEqual([]);
    for (const p of providers) expect(p).not.toContain(api.url);
    expect(providers[0].length).toBeLessThan(2048);
  });

  test("destroy (normal for one user, --debug for the other)", async () => {
    const b = (await stack.resources(TYPE)).find((r) => r.urn.endsWith("::audit-b"))!;
    await step("destroy --target audit-b", stack.destroy(["--target", b.urn, "--target-dependents"]));
    expect(await stack.resources(TYPE)).toHaveLength(1);
    await step("destroy --debug", stack.destroy(["--debug"]));
    expect(await stack.resources(TYPE)).toHaveLength(0);
  });

  test("audit: 0 hits in the normal outputs, the state file, export, backend files and config file", () => {
    const places: Array<[string, string]> = [
      ...outputs
        .filter(([label]) => !label.includes("--debug"))
        .map(([label, r]) => [`output of ${label}`, r.output] as [string, string]),
      ...stateFiles,
      ...filesUnder(stack.workDir),
      [
        `Pulumi.${stack.stackName}.yaml`,
        fs.readFileSync(path.join(stack.programDir, `Pulumi.${stack.stackName}.yaml`), "utf8"),
      ],
    ];
    expect(places.length).toBeGreaterThan(10);
    expect(needles().length).toBe(2 * (1 + 2 * 10));
    expect(hits(places)).toEqual([]);
    // The secrets do appear, masked: the audit ran on outputs that name them.
    expect(outputs.find(([l]) => l === "stack output credentials")![1].output).toContain("[secret]");
  });

  test("audit: 0 hits in the --debug outputs (preview, up, refresh, destroy)", () => {
    const debug = outputs.filter(([label]) => label.includes("--debug"));
    expect(debug.map(([l]) => l)).toEqual([
      "preview --debug",
      "up --debug (audit-a)",
      "preview after up --debug",
      "refresh --debug",
      "destroy --debug",
    ]);
    const found = hits(debug.map(([label, r]) => [`output of ${label}`, r.output]));
    // Where they come from, for the report: the lines that carry them.
    const list = needles();
    const lines = debug.flatMap(([label, r]) =>
      r.output
        .split("\n")
        .filter((l) => list.some(([, v]) => l.includes(v)))
        .map((l) => `${label}: ${list.reduce((t, [what, v]) => t.split(v).join(`<${what}>`), l.trim()).slice(0, 160)}`),
    );
    expect(found, lines.slice(0, 4).join("\n")).toEqual([]);
  });
});

// The provider's own messages, the same on any CLI: the pinned CLI alone.
describe.skipIf(onNewestCli)("error paths do not echo the token or the request headers", () => {
  // One stack for the three cases, each against its own API server (so every count is the case's
  // own): a refusal records nothing, so the cases do not interfere as long as the one recorded
  // failure (500) comes last.
  let errStack: TestStack;
  beforeAll(async () => {
    errStack = await TestStack.create({
      programDir: ".",
      config: { "users[0].name": "err" },
      secrets: { "storage:accessToken": token },
    });
  });
  afterAll(() => errStack?.dispose());

  // [case, arrange, userName, code]. One up with --debug each, whose output holds the normal one's
  // messages too. What a second up sends after each outcome is test/e2e/faults.test.ts's.
  test.each<[string, (api: ApiServer) => void, string, string]>([
    ["400 (a userName over the API's 128 characters)", () => {}, "x".repeat(140), "[REJECTED]"],
    ["a wrong token (403)", () => {}, "err-403", "[UNAUTHORIZED]"],
    ["500, recorded as unconfirmed", (a) => a.inject({ kind: "status", status: 500 }), "err-500", "[OUTCOME_UNKNOWN]"],
  ])("%s", async (label, arrange, userName, code) => {
    const wrong = label.startsWith("a wrong token");
    const errApi = await startApiServer({ token: wrong ? "the-right-token-is-another" : token });
    try {
      await errStack.must(["config", "set", "storage:baseUrl", errApi.url]);
      await errStack.must(["config", "set", "--path", "users[0].userName"], { input: userName });
      arrange(errApi);
      const up = await errStack.up(["--debug"]);
      expect(errApi.requests).toHaveLength(1);
      expect(errApi.users).toHaveLength(0);
      const places: Array<[string, string]> = [
        ["output of up --debug", up.output],
        ["state file", errStack.stateFileText()],
        ...filesUnder(errStack.workDir),
      ];
      expect(up.code).not.toBe(0);
      expect(up.output).toContain(code);
      const found = hits(places, [
        ["access token", token],
        ["access token (base64)", Buffer.from(token).toString("base64")],
      ]);
      expect(found).toEqual([]);
      for (const [where, text] of places) {
        expect(text, `request header in ${where}`).not.toMatch(/authorization\s*[:=]/i);
        expect(text, `request header in ${where}`).not.toMatch(/"?user-agent"?\s*[:=]\s*"?pulumi-storage-user/i);
      }
    } finally {
      await errApi.close();
    }
  });
});
