// The token and every credential stay secret through the real CLI: state, history, backups, exports,
// PULUMI_HOME, the config file and every output (--debug too) searched, 0 hits; and where the token may
// live: encrypted, or from the environment; plain, misspelt or in the project file it is refused before
// anything registers. (A state in an S3 bucket: real-credentials.test.ts; the engine's own -v=9 logs:
// docs/testing.md.)
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { ApiServer, startApiServer } from "../../../server/api-server";
import { RunResult, TestStack } from "../../../scripts/stack";
import { failed, ok, onNewestCli } from "../../support/cli-project";
import { filesUnder, hits, secretsOf, withEncodings } from "../../support/secrets";
import { errorSaid } from "../../support/said";

// A token that begins with "-": a tool taking it on the command line would read a flag.
const token = "-z-EA6audit-token-7Hq2mZ9xW4vR8kLp";
const TYPE = "pulumi-nodejs:dynamic/storage:StorageUser";
const PROVIDER = "pulumi:providers:pulumi-nodejs";
let api: ApiServer;
beforeAll(async () => void (api = await startApiServer({ token })));
afterAll(() => api?.close());

/** Every file a stack left: its backend (state, history, backups), PULUMI_HOME and its config file. */
const filesOf = (stack: TestStack): Array<[string, string]> => [
  ...filesUnder(stack.workDir),
  ...filesUnder(stack.programDir).filter(([f]) => path.basename(f) === `Pulumi.${stack.stackName}.yaml`),
];
/** The names of the files holding `value`. */
const filesWith = (stack: TestStack, value: string) => hits(filesOf(stack), [["", value]]).map((h) => path.basename(h));

describe("one stack through preview, up, refresh and destroy", () => {
  let stack: TestStack;
  /** Every CLI output, by label. */
  const outputs: Array<[string, RunResult]> = [];
  const stateFiles: Array<[string, string]> = [];
  const needles = () => withEncodings([["access token", token], ...api.users.flatMap(secretsOf)]);
  const step = async (label: string, run: Promise<RunResult>) => {
    const r = await run;
    outputs.push([label, r]);
    expect(r.code, `${label}\n${r.output}`).toBe(0);
    return r;
  };

  beforeAll(async () => {
    stack = await TestStack.create({
      programDir: ".",
      config: { "storage:baseUrl": api.url, "users[0].name": "audit-a", "users[0].userName": "audit-a" },
    });
    // As README says: no value on the command line, the CLI reads it (and its newline) from standard input.
    await stack.must(["config", "set", "--secret", "storage:accessToken"], { input: `${token}\n` });
  });
  afterAll(() => stack?.dispose());

  // The --debug outputs hold the plain ones' messages; lifecycle.test.ts runs the plain preview and refresh.
  test("preview --debug needs no request; up (--debug for one user, normal for a second) creates both", async () => {
    await step("preview --debug", stack.preview(["--debug"]));
    expect(api.requests).toHaveLength(0);
    await step("up --debug (audit-a)", stack.up(["--debug"]));
    await stack.setConfig({ "users[1].name": "audit-b", "users[1].userName": "audit-b" });
    await step("up (audit-b)", stack.up());
    expect(api.users.map((u) => u.Name)).toEqual(["audit-a", "audit-b"]);
    expect(api.requests.every((r) => r.authorized)).toBe(true);
    stateFiles.push(["state file after up", stack.stateFileText()]);
    await step("preview after up --debug", stack.preview(["--debug", "--diff"]));
    await step("refresh --debug", stack.refresh(["--debug"]));
    stateFiles.push(["state file after refresh", stack.stateFileText()]);
    expect(api.createAttempts).toBe(2);
  });

  test("`stack output --show-secrets` shows the credentials (the search is not vacuous); stack output and export mask or encrypt them", async () => {
    const shown = await stack.must(["stack", "output", "--json", "--show-secrets"]);
    for (const [what, value] of api.users.flatMap(secretsOf)) expect(shown.stdout, what).toContain(value);
    await step("stack output", stack.run(["stack", "output", "--json"]));
    const masked = await step("stack output credentials", stack.run(["stack", "output", "credentials"]));
    expect(masked.output).toContain("[secret]");
    const exported = JSON.parse((await step("stack export", stack.run(["stack", "export"]))).stdout);
    const resources = exported.deployment.resources.filter((r: any) => r.type === TYPE);
    expect(resources).toHaveLength(2);
    for (const r of resources) {
      // One encrypted object holds every credential; the secret outputs are derived in the program.
      expect(r.outputs.secrets, r.urn).toHaveProperty("4dabf18193072939515e22adb298388d");
      for (const k of ["credentials", "name", "password", "swift", "s3", "ftp", "env", "ftpUrl"])
        expect(r.outputs, `${r.urn} ${k}`).not.toHaveProperty(k);
      expect(Object.keys(r.inputs).sort()).toEqual(["__provider", "__urn", "persistPassword", "userName"]);
      // The serialized provider captures nothing: a one-line require, no URL.
      expect(r.inputs.__provider).toContain('require("pulumi-storage-user/dist/provider/runtime');
      expect(r.inputs.__provider).not.toContain(api.url);
    }
    // The token is the default provider's input, encrypted; decrypted, it is there (so the searches mean something).
    const provider = (e: any) => e.deployment.resources.find((r: any) => r.type === PROVIDER);
    expect(provider(exported).inputs["storage:accessToken"]).toHaveProperty("ciphertext");
    expect(JSON.stringify(provider(await stack.exportState(true)).inputs)).toContain(token);
  });

  test("destroy --debug; then 0 hits in every output, state file, backend and PULUMI_HOME file and the config file", async () => {
    await step("destroy --debug", stack.destroy(["--debug"]));
    expect(await stack.resources(TYPE)).toHaveLength(0);
    const files = filesOf(stack);
    const searched = files.map(([f]) => f).join("\n");
    for (const dir of ["history", "backups"])
      expect(searched, "the search reaches it").toContain(`${path.sep}${dir}${path.sep}`);
    expect(searched, "the search reaches it").toContain(`Pulumi.${stack.stackName}.yaml`);
    const places = [...outputs.map(([label, r]): [string, string] => [label, r.output]), ...stateFiles, ...files];
    expect(needles().length).toBe(2 * (1 + 2 * 10));
    const found = hits(places, needles());
    expect(found).toEqual([]);
    expect(outputs.map(([l]) => l).filter((l) => l.includes("--debug"))).toHaveLength(5);
  });

  // The provider's own messages, the same on any CLI. Each case against an API server of its own,
  // so every count is its own; a refusal records nothing, and the one recorded failure comes last.
  test.skipIf(onNewestCli).each<[string, (a: ApiServer) => void, string, string]>([
    ["400 (a userName over the API's 128 characters)", () => {}, "x".repeat(140), "[REJECTED]"],
    ["a wrong token (403)", () => {}, "err-403", "[UNAUTHORIZED]"],
    ["500, recorded as unconfirmed", (a) => a.inject({ kind: "status", status: 500 }), "err-500", "[OUTCOME_UNKNOWN]"],
  ])("error path: %s echoes neither the token nor the request headers", async (label, arrange, userName, code) => {
    const errApi = await startApiServer({ token: label.startsWith("a wrong token") ? "another-token" : token });
    try {
      await stack.must(["config", "rm", "--path", "users[1]"]);
      await stack.setConfig({ "storage:baseUrl": errApi.url, "users[0].userName": userName });
      arrange(errApi);
      const up = failed(await stack.up(["--debug"])); // its output holds the normal one's messages too
      expect(up.output).toContain(code);
      expect([errApi.requests.length, errApi.users.length]).toEqual([1, 0]);
      const places: Array<[string, string]> = [["up --debug", up.output], ...filesOf(stack)];
      expect(hits(places, withEncodings([["access token", token]]))).toEqual([]);
      for (const [where, text] of places) {
        expect(text, `request header in ${where}`).not.toMatch(/authorization\s*[:=]/i);
        expect(text, `request header in ${where}`).not.toMatch(/"?user-agent"?\s*[:=]\s*"?pulumi-storage-user/i);
      }
    } finally {
      await errApi.close();
    }
  });
});

describe("where the token may live", () => {
  const plain = "plain-token-value-7c41e9a2b0";
  let stack: TestStack;
  const users = (list: object[]) => ({ "options:users": JSON.stringify(list) });
  beforeAll(async () => {
    stack = await TestStack.create({
      programDir: "test/programs/options",
      config: {
        "storage:baseUrl": api.url,
        "storage:accessToken": plain,
        ...users([{ name: "tok", userName: "tok-a" }]),
      },
    });
  });
  afterAll(() => stack?.dispose());
  const keys = { key: "storage:accessToken", env: "STORAGE_ACCESS_TOKEN", path: false };

  test("plain in stack config: refused before anything registers, naming the key and the fix, never the value", async () => {
    const requests = api.requests.length;
    // `pulumi up --yes` as typed fails in its preview phase: no update is recorded.
    const typed = await stack.run(["up", "--yes", "--non-interactive"]);
    expect(filesWith(stack, plain)).toEqual([`Pulumi.${stack.stackName}.yaml`]);
    // An update that starts (`up --skip-preview`, as the Automation API's up runs it) is recorded in
    // .pulumi/history with the config, plain values in plain text, before the program refuses it:
    // what the message's "rotate the token" is for (docs/configuration.md "Where the token lives").
    const up = await stack.up();
    for (const r of [typed, up]) {
      expect(r.code, r.output).not.toBe(0);
      const where = `Pulumi.${stack.stackName}.yaml`;
      expect(r.output).toContain(errorSaid("CONFIG_NOT_SECRET", { ...keys, where, project: false, inline: false }));
      expect(r.output).not.toContain(plain);
    }
    const history = expect.stringMatching(/\.history\.json$/);
    expect(filesWith(stack, plain).sort()).toEqual([`Pulumi.${stack.stackName}.yaml`, history].sort());
    expect(stack.stateFileText()).not.toContain(plain);
    // And the CLI prints the config, plain values as they are, in `preview --json` before the program refuses it.
    const json = failed(await stack.preview(["--json"]));
    expect(json.stdout).toContain(plain);
    expect(json.stdout).toContain("[CONFIG_NOT_SECRET]");
    expect(api.requests.length).toBe(requests);
  });

  test("in the project file's config block: refused at preview, naming that file and the fix, never the value", async () => {
    const projectToken = "project-token-4b1d9e7c2a"; // test/programs/project-token/Pulumi.yaml
    const config = { "storage:baseUrl": api.url };
    const project = await TestStack.create({ programDir: "test/programs/project-token", config });
    try {
      const r = failed(await project.preview());
      const keys = { key: "storage:accessToken", env: "STORAGE_ACCESS_TOKEN", path: false };
      const where = { where: "Pulumi.yaml", project: true, inline: false };
      expect(r.output).toContain(errorSaid("CONFIG_NOT_SECRET", { ...keys, ...where }));
      expect(r.output).not.toContain(projectToken);
    } finally {
      await project.dispose();
    }
  });

  // Found by new-user trials; the same path as a plain token (the program's check of the config): pinned CLI alone.
  test.skipIf(onNewestCli)(
    "a misspelt key under storage:, and a plain connection token beside a secret one: refused, named, their values in no checkpoint; the token from the environment in no file",
    async () => {
      const env = { env: { STORAGE_ACCESS_TOKEN: token } };
      const value = "misspelt-plain-value-4c0e9d71";
      const connToken = "conn-token-eu-5d8e3f1a";
      const plainConn = "conn-token-us-9b2c4e7d";
      const requests = api.requests.length;
      const refused = async (message: string, ...secrets: string[]) => {
        const r = await stack.run(["up", "--yes", "--non-interactive"], env); // refused in its preview phase
        expect(r.code, r.output).not.toBe(0);
        expect(r.output).toContain(message);
        for (const s of secrets) expect(r.output).not.toContain(s);
        return r;
      };
      await stack.must(["config", "rm", "storage:accessToken"]);
      await stack.setConfig({ "storage:accessTokn": value });
      const known = ["storage:baseUrl", "storage:accessToken", "storage:connections"];
      const unknown = { keys: ["storage:accessTokn"], known, path: false, suggest: "storage:accessToken" };
      await refused(errorSaid("CONFIG_INVALID", { problem: "unknownKeys", ...unknown }), value);
      await stack.must(["config", "rm", "storage:accessTokn"]);
      // A user in the stack: what follows is refused on an existing stack as on a new one.
      ok(await stack.up([], env));
      // The token from the environment is no input of the default provider, not even encrypted.
      const exported = await stack.exportState(true);
      const provider = exported.deployment.resources!.find((r) => r.type === PROVIDER)!;
      expect(provider.inputs).not.toHaveProperty("storage:accessToken");
      expect(JSON.stringify(exported)).not.toContain(token);
      // A connection's token, one entry secret and another plain: the plain one is found and named.
      await stack.setConfig({ "storage:connections.eu.baseUrl": api.url });
      const setSecret = (key: string, input: string) =>
        stack.must(["config", "set", "--path", "--secret", key], { input });
      await setSecret("storage:connections.eu.accessToken", connToken);
      await stack.setConfig({
        "storage:connections.us.baseUrl": api.url,
        "storage:connections.us.accessToken": plainConn,
        ...users([
          { name: "tok", userName: "tok-a" },
          { name: "us", userName: "conn-us", connection: "us" },
        ]),
      });
      const us = { key: "storage:connections.us.accessToken", env: "STORAGE_ACCESS_TOKEN_US", path: true };
      const where = `Pulumi.${stack.stackName}.yaml`;
      await refused(errorSaid("CONFIG_NOT_SECRET", { ...us, where }), connToken, plainConn);
      expect(api.requests.length - requests, "only the one good up sent anything").toBe(1);
      // Fixed as the message says: up works.
      await setSecret("storage:connections.us.accessToken", token);
      ok(await stack.up([], env));
      expect(api.users.some((u) => u.Name === "conn-us")).toBe(true);
      // What the user typed stays in the CLI's record of each update's config and the config file; no checkpoint has it.
      for (const v of [value, plainConn])
        expect(filesWith(stack, v).filter((f) => !f.endsWith(".history.json") && !f.startsWith("Pulumi."))).toEqual([]);
      for (const v of [token, connToken]) expect(filesWith(stack, v)).toEqual([]);
    },
  );
});
