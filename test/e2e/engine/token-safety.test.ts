// Where the API token lives, through the real CLI: a token in plain (non-secret) stack config
// fails preview and up with [CONFIG_NOT_SECRET] naming the key and the fix, never the value, and
// before anything is registered; a secret token is only ever encrypted in state (the default
// provider's inputs), its history and backups; a token from the environment is nowhere in them.
// Program: test/programs/options. On the newest CLI (vitest.config.mts) the paths that depend on
// what the CLI does run again: how it marks secret keys, stores a --secret value, reads a value
// from standard input; tests that exercise the same marks with other keys run on the pinned CLI.
import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { ApiServer, startApiServer } from "../../../server/api-server";
import { TestStack } from "../../../scripts/stack";
import { onNewestCli } from "../../support/cli-project";

const token = "token-safety-7c41e9a2b0";
let api: ApiServer;
beforeAll(async () => void (api = await startApiServer({ token })));
afterAll(() => api.close());

const users = (list: Array<Record<string, unknown>>) => ({ "options:users": JSON.stringify(list) });

/** Every file the stack left on disk: the backend (state, .pulumi/history, .pulumi/backups), PULUMI_HOME and the stack's config file. */
function filesOf(stack: TestStack): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) out.push(p);
    }
  };
  walk(stack.workDir);
  // Beside the program: in the work directory too when the program runs from a copy (scripts/stack.ts).
  const config = path.join(stack.programDir, `Pulumi.${stack.stackName}.yaml`);
  if (!out.includes(config)) out.push(config);
  return out;
}

function hitsOf(stack: TestStack, value: string): string[] {
  return filesOf(stack).filter((f) => fs.existsSync(f) && fs.readFileSync(f, "utf8").includes(value));
}

/** The backend keeps every checkpoint in .pulumi/history and .pulumi/backups: the search must have reached them. */
function expectHistoryAndBackups(stack: TestStack) {
  const files = filesOf(stack);
  expect(
    files.some((f) => f.includes(`${path.sep}history${path.sep}`)),
    "no history files to search",
  ).toBe(true);
  expect(
    files.some((f) => f.includes(`${path.sep}backups${path.sep}`)),
    "no backup files to search",
  ).toBe(true);
}

/** Preview fails with every one of `texts`, never shows `secret`, and sends no request. */
async function expectRefusedAtPreview(stack: TestStack, secret: string, texts: string[]) {
  const before = api.requests.length;
  const r = await stack.preview();
  expect(r.code, r.output).not.toBe(0);
  for (const text of texts) expect(r.output).toContain(text);
  expect(r.output).not.toContain(secret);
  expect(api.requests.length).toBe(before);
}

describe("storage:accessToken", () => {
  test("set without --secret: preview and up fail naming the key and the fix, never the value", async () => {
    const stack = await TestStack.create({
      programDir: "test/programs/options",
      config: {
        "storage:baseUrl": api.url,
        "storage:accessToken": token,
        ...users([{ name: "tok", userName: "tok-a" }]),
      },
    });
    try {
      const pv = await stack.preview();
      // Nothing was registered, so not even the default provider carried the token into state.
      expect(hitsOf(stack, token).map((f) => path.basename(f))).toEqual([`Pulumi.${stack.stackName}.yaml`]);
      // `pulumi up --yes` as typed: it fails in its preview phase, and no update is recorded.
      const typed = await stack.run(["up", "--yes", "--non-interactive"]);
      expect(hitsOf(stack, token).map((f) => path.basename(f))).toEqual([`Pulumi.${stack.stackName}.yaml`]);
      const up = await stack.up();
      for (const r of [pv, typed, up]) {
        expect(r.code, r.output).not.toBe(0);
        expect(r.output).toContain(
          "[CONFIG_NOT_SECRET] storage:accessToken is set in plain text in the stack configuration",
        );
        expect(r.output).toContain(
          "run `pulumi config set --secret storage:accessToken` and enter the token at its prompt (or pipe it in)",
        );
        expect(r.output).not.toContain(token);
      }
      expect(api.requests).toHaveLength(0);
      // An update that starts (`up --skip-preview`, as the Automation API's up runs it) is
      // recorded in .pulumi/history with the config, plain values in plain text, before the
      // program runs: what the message's "rotate the token" is for (docs/configuration.md
      // "Where the token lives").
      expect(
        hitsOf(stack, token)
          .map((f) => path.basename(f))
          .sort(),
      ).toEqual([`Pulumi.${stack.stackName}.yaml`, expect.stringMatching(/\.history\.json$/)].sort());
      expect(stack.stateFileText()).not.toContain(token);
      // And the CLI prints the stack's config, plain values as they are, in `preview --json`
      // before the program refuses it (docs/configuration.md: a CI job saving it keeps the token).
      const json = await stack.preview(["--json"]);
      expect(json.code).not.toBe(0);
      expect(json.stdout).toContain(token);
      expect(json.stdout).toContain("[CONFIG_NOT_SECRET]");
    } finally {
      await stack.dispose();
    }
  });

  test("set in the project file's config block: preview fails naming that file and the fix, never the value", async () => {
    const projectToken = "project-token-4b1d9e7c2a"; // test/programs/project-token/Pulumi.yaml
    const stack = await TestStack.create({
      programDir: "test/programs/project-token",
      config: { "storage:baseUrl": api.url },
    });
    try {
      await expectRefusedAtPreview(stack, projectToken, [
        "[CONFIG_NOT_SECRET] storage:accessToken is set in plain text in the project configuration (Pulumi.yaml)",
        "remove it from the config block of Pulumi.yaml and run `pulumi config set --secret storage:accessToken` and enter the token at its prompt",
      ]);
    } finally {
      await stack.dispose();
    }
  });

  // On the newest CLI the secret audit (test/e2e/engine/secret-audit.test.ts) searches the same state, history
  // and backups for the token.
  test.skipIf(onNewestCli)(
    "set with --secret: up works; state, history and backups hold it only encrypted, as the default provider's input",
    async () => {
      const stack = await TestStack.create({
        programDir: "test/programs/options",
        config: { "storage:baseUrl": api.url, ...users([{ name: "tok", userName: "tok-a" }]) },
        secrets: { "storage:accessToken": token },
      });
      try {
        const up = await stack.up();
        expect(up.code, up.output).toBe(0);
        expect(api.users.map((u) => u.Name)).toEqual(["tok-a"]);
        expect((await stack.up()).code).toBe(0); // one more checkpoint in history and backups
        expectHistoryAndBackups(stack);
        expect(hitsOf(stack, token)).toEqual([]);

        const provider = (await stack.exportState()).deployment.resources!.find(
          (r) => r.type === "pulumi:providers:pulumi-nodejs",
        )!;
        expect(provider.inputs["storage:accessToken"]).toEqual(
          expect.objectContaining({ ciphertext: expect.any(String) }),
        );
        const decrypted = (await stack.exportState(true)).deployment.resources!.find(
          (r) => r.type === "pulumi:providers:pulumi-nodejs",
        )!;
        expect(JSON.stringify(decrypted.inputs["storage:accessToken"])).toContain(token); // so the search above meant something
        const [user] = await stack.resources();
        expect(Object.keys(user.inputs).sort()).toEqual(["__provider", "__urn", "persistPassword", "userName"]);
      } finally {
        await stack.dispose();
      }
    },
  );
});

describe("a token that begins with '-' (read as a flag by a tool that takes it on the command line)", () => {
  const dashToken = "-z-EA6dash-token-41c9";
  let dashApi: ApiServer;
  beforeAll(async () => void (dashApi = await startApiServer({ token: dashToken })));
  afterAll(() => dashApi.close());

  test("set as README says (no value on the command line: the CLI reads it from standard input), up creates the user with it", async () => {
    const stack = await TestStack.create({
      programDir: "test/programs/options",
      config: { "storage:baseUrl": dashApi.url, ...users([{ name: "dash", userName: "dash-a" }]) },
    });
    try {
      // The documented command, typed as is: `pulumi config set --secret storage:accessToken`,
      // with the token piped in (at a terminal it is a prompt that does not echo).
      await stack.must(["config", "set", "--secret", "storage:accessToken"], { input: `${dashToken}\n` });
      const up = await stack.up();
      expect(up.code, up.output).toBe(0);
      expect(dashApi.requests.map((r) => r.authorized)).toEqual([true]);
      expect(dashApi.users.map((u) => u.Name)).toEqual(["dash-a"]);
      expect(up.output).not.toContain(dashToken);
      expect(hitsOf(stack, dashToken)).toEqual([]);
    } finally {
      await stack.dispose();
    }
  });

  test.skipIf(onNewestCli)(
    "the project's own stack set-up (tests, demo) passes it as a value, not as a flag",
    async () => {
      const stack = await TestStack.create({
        programDir: "test/programs/options",
        config: { "storage:baseUrl": dashApi.url, ...users([{ name: "dash2", userName: "dash-b" }]) },
        secrets: { "storage:accessToken": dashToken },
      });
      try {
        const up = await stack.up();
        expect(up.code, up.output).toBe(0);
        expect(dashApi.users.map((u) => u.Name)).toContain("dash-b");
        expect(dashApi.requests.every((r) => r.authorized)).toBe(true);
      } finally {
        await stack.dispose();
      }
    },
  );
});

// Found by a new-user trial: the token under a misspelt key, set without --secret, and the real
// token in the environment. The misspelt key reaches nothing, so up used to succeed and Pulumi
// wrote the plain value into the state as an input of the dynamic provider.
// The same engine path as a plain token (the CLI names the secret keys to the program): on the pinned CLI alone.
test.skipIf(onNewestCli)(
  "a misspelt storage key (storage:accessTokn): preview and up fail naming it, and the state never holds its value",
  async () => {
    const stack = await TestStack.create({
      programDir: "test/programs/options",
      config: {
        "storage:baseUrl": api.url,
        "storage:accessTokn": token,
        ...users([{ name: "typo", userName: "typo-a" }]),
      },
      env: { STORAGE_ACCESS_TOKEN: token },
    });
    try {
      const before = api.requests.length;
      const pv = await stack.preview();
      const up = await stack.up();
      for (const r of [pv, up]) {
        expect(r.code, r.output).not.toBe(0);
        expect(r.output).toContain(
          '[CONFIG_INVALID] "storage:accessTokn" is not a setting of pulumi-storage-user, which reads only storage:baseUrl, storage:accessToken and storage:connections',
        );
        expect(r.output).toContain("remove it with `pulumi config rm <key>`");
        expect(r.output).not.toContain(token);
      }
      expect(api.requests.length - before, "nothing was sent").toBe(0);
      // What the CLI records itself before the program runs (the update's config, in history) is
      // what the message's "rotate the token" is for; the state has nothing.
      expect(stack.stateFileText()).not.toContain(token);
      expect(
        hitsOf(stack, token).filter(
          (f) => !f.endsWith(".history.json") && !f.endsWith(`Pulumi.${stack.stackName}.yaml`),
        ),
      ).toEqual([]);
    } finally {
      await stack.dispose();
    }
  },
);

// Found by a new-user trial: a plain value under a misspelt key of a connection no resource
// uses went into the state as an input of the dynamic provider, and up said `unchanged`. Every
// shape of a key under `storage:` that is no setting is refused before anything registers, on an
// existing stack as on a new one. Two shapes go through the CLI: the trial's, and a key that is not
// even an object; test/unit/storage-config.test.ts has the message of every shape, from the same check.
test.skipIf(onNewestCli)(
  "keys under storage: that are no setting, used or not: up refuses each, naming it; its value reaches no state, checkpoint or backup; the token from the environment reaches no file",
  async () => {
    const value = "misspelt-plain-value-4c0e9d71";
    const stack = await TestStack.create({
      programDir: "test/programs/options",
      config: { "storage:baseUrl": api.url, ...users([{ name: "keys", userName: "keys-a" }]) },
      env: { STORAGE_ACCESS_TOKEN: token },
    });
    const shapes: Array<[string[], string]> = [
      [
        ["storage:connections.eu.baseUrl", "storage:connections.eu.accesToken"],
        'storage:connections.eu has "accesToken", which is not a connection setting',
      ],
      [["storage:connections"], "storage:connections is not an object of named connections"],
    ];
    try {
      expect((await stack.up()).code).toBe(0);
      const before = api.requests.length;
      for (const [keys, message] of shapes) {
        // --plaintext: the CLI refuses a value that looks like a secret without it, as the trial's user met.
        for (const key of keys)
          await stack.must(["config", "set", "--plaintext", "--path", key], {
            input: key.endsWith("baseUrl") ? api.url : value,
          });
        // up alone: preview refuses by the same check (the misspelt key's test above).
        const r = await stack.up();
        expect(r.code, r.output).not.toBe(0);
        expect(r.output).toContain(`[CONFIG_INVALID] ${message}`);
        expect(r.output).not.toContain(value);
        await stack.must([
          "config",
          "rm",
          keys[0].startsWith("storage:connections.") ? "storage:connections" : keys[0],
        ]);
      }
      expect(api.requests.length - before, "nothing was sent").toBe(0);
      expectHistoryAndBackups(stack);
      // The CLI's own record of each update's config (.history.json) and the stack's config file
      // hold what the user typed; no checkpoint (state, history, backups) does.
      expect(
        hitsOf(stack, value).filter(
          (f) => !f.endsWith(".history.json") && !f.endsWith(`Pulumi.${stack.stackName}.yaml`),
        ),
      ).toEqual([]);
      const fixed = await stack.up();
      expect(fixed.code, fixed.output).toBe(0);

      // The token this stack ran with came from the environment: it is in no file at all, and the
      // default provider's recorded inputs have no storage:accessToken.
      expect(hitsOf(stack, token)).toEqual([]);
      const exported = await stack.exportState(true);
      const provider = exported.deployment.resources!.find((r) => r.type === "pulumi:providers:pulumi-nodejs")!;
      expect(provider.inputs).not.toHaveProperty("storage:accessToken");
      expect(JSON.stringify(exported)).not.toContain(token);
    } finally {
      await stack.dispose();
    }
  },
);

describe.skipIf(onNewestCli)("per-connection tokens (storage:connections.<name>.accessToken)", () => {
  const connToken = "token-safety-conn-5d8e3f1a";
  const connToken2 = "token-safety-conn2-9b2c4e7d";

  test("the whole object plain: refused, naming the entry and the --path --secret fix", async () => {
    const stack = await TestStack.create({
      programDir: "test/programs/options",
      config: {
        "storage:connections.eu.baseUrl": api.url,
        "storage:connections.eu.accessToken": connToken,
        ...users([{ name: "eu", userName: "conn-eu", connection: "eu" }]),
      },
    });
    try {
      await expectRefusedAtPreview(stack, connToken, [
        "[CONFIG_NOT_SECRET] storage:connections.eu.accessToken is set in plain text",
        "`pulumi config set --path --secret storage:connections.eu.accessToken` and enter the token at its prompt",
        "STORAGE_ACCESS_TOKEN_EU",
      ]);
    } finally {
      await stack.dispose();
    }
  });

  test("one entry secret, another plain: the plain one is found and named (the file holds it verbatim)", async () => {
    const stack = await TestStack.create({
      programDir: "test/programs/options",
      config: {
        "storage:connections.eu.baseUrl": api.url,
        "storage:connections.us.baseUrl": api.url,
        ...users([{ name: "us", userName: "conn-us", connection: "us" }]),
      },
    });
    try {
      await stack.must(["config", "set", "--path", "--secret", "storage:connections.eu.accessToken"], {
        input: connToken,
      });
      await stack.must(["config", "set", "--path", "storage:connections.us.accessToken", connToken2]);
      const before = api.requests.length;
      const r = await stack.up();
      expect(r.code, r.output).not.toBe(0);
      expect(r.output).toContain("[CONFIG_NOT_SECRET] storage:connections.us.accessToken is set in plain text");
      expect(r.output).not.toContain(connToken2);
      expect(r.output).not.toContain(connToken);
      expect(api.requests.length).toBe(before);
      expect(await stack.resources()).toHaveLength(0);

      // Fixed as the message says: up works and no token is in plain text anywhere.
      await stack.must(["config", "set", "--path", "--secret", "storage:connections.us.accessToken"], { input: token });
      const up = await stack.up();
      expect(up.code, up.output).toBe(0);
      expect(api.users.some((u) => u.Name === "conn-us")).toBe(true);
      expect(hitsOf(stack, token)).toEqual([]);
      expect(hitsOf(stack, connToken)).toEqual([]);
    } finally {
      await stack.dispose();
    }
  });
});
