// Hostile input is refused at preview, with the field named, before any request: plain values and
// the resource options that cannot work by the StorageUser constructor (a program error), Outputs
// by the provider's check (a CLI check failure naming the property), configuration by check too.
// Values unknown at preview pass.
// The rules themselves, and why they are only well-formedness rules: docs/input-rules.md.
//
// Program: test/programs/hostile, cases given as JSON in `-c hostile:cases=...`. The engine
// stops a preview at the first check failure, so each Output case gets a preview of its own;
// the constructor cases all run in one preview (the program catches and prints each error).
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { ApiServer, startApiServer } from "../../server/api-server";
import { RunResult, TestStack } from "../../scripts/stack";

const token = "hostile-token-5f3a9c2e";
const TYPE = "pulumi-nodejs:dynamic/storage:StorageUser";
let api: ApiServer;
let stack: TestStack;

beforeAll(async () => {
  api = await startApiServer({ token });
  stack = await TestStack.create({ programDir: "test/programs/hostile", config: { "hostile:cases": "[]" } });
});
afterAll(async () => {
  await stack?.dispose();
  await api?.close();
});

type Route = "plain" | "plain-throw" | "output" | "unknown";
interface Case {
  name: string;
  args: unknown;
  opts?: Record<string, unknown>;
  route: Route;
}

function preview(
  cases: Case[],
  env: Record<string, string | undefined> = { STORAGE_API_URL: api.url },
): Promise<RunResult> {
  return stack.preview(["-c", `hostile:cases=${JSON.stringify(cases)}`], { env });
}

const long257 = "a".repeat(257);

/** [case, args, the failure text naming the field]. Every one of them must be refused. */
const refused: Array<[string, unknown, string]> = [
  ["empty userName", { userName: "" }, "userName must not be empty"],
  ["whitespace-only userName", { userName: "   " }, "userName must not be whitespace only"],
  ["leading space", { userName: " app-prod" }, 'userName must not start or end with whitespace: use "app-prod"'],
  ["trailing space", { userName: "app-prod " }, 'userName must not start or end with whitespace: use "app-prod"'],
  ["userName a number", { userName: 42 }, "userName must be a string, got number"],
  ["userName a boolean", { userName: true }, "userName must be a string, got boolean"],
  ["userName an object", { userName: { first: "app" } }, "userName must be a string, got object"],
  ["userName an array", { userName: ["app"] }, "userName must be a string, got object"],
  ["userName null", { userName: null }, "userName must be a string, got null"],
  ["userName of 257 characters", { userName: long257 }, "userName is 257 characters long; at most 256 are accepted"],
  [
    "control character U+0001",
    { userName: "app\u0001prod" },
    "userName must not contain control characters or line breaks",
  ],
  ["newline", { userName: "app\nprod" }, "userName must not contain control characters or line breaks"],
  ["carriage return", { userName: "app\rprod" }, "userName must not contain control characters or line breaks"],
  ["tab", { userName: "app\tprod" }, "userName must not contain control characters or line breaks"],
  ["DEL U+007F", { userName: "app\u007f" }, "userName must not contain control characters or line breaks"],
  ["C1 control U+0085", { userName: "app\u0085prod" }, "userName must not contain control characters or line breaks"],
  [
    "line separator U+2028",
    { userName: "app\u2028prod" },
    "userName must not contain control characters or line breaks",
  ],
  [
    'persistPassword "true" (a string)',
    { userName: "ok-a", persistPassword: "true" },
    'persistPassword must be true or false, got "true"',
  ],
  ["persistPassword 1", { userName: "ok-b", persistPassword: 1 }, "persistPassword must be true or false, got 1"],
  [
    "typo `pasword` (unknown argument)",
    { userName: "ok-c", pasword: "hunter2" },
    "pasword is not a StorageUser argument",
  ],
  ["`UserName` (the API's spelling)", { UserName: "ok-d" }, "UserName is not a StorageUser argument"],
  [
    "a connection name with a space",
    { userName: "ok-f", connection: "EU West" },
    'connection "EU West" is not a connection name',
  ],
  ["null args", null, "has arguments that are not an object"],
  ["a string instead of args", "app-prod", "has arguments that are not an object"],
];

/** [option, resource options, the failure text]: the options that cannot work with a create-only API. */
const refusedOptions: Array<[string, Record<string, unknown>, string]> = [
  [
    "deleteBeforeReplace",
    { deleteBeforeReplace: true },
    "sets the resource option deleteBeforeReplace, which cannot work here: the API has no delete call",
  ],
  [
    'replaceOnChanges: ["*"]',
    { replaceOnChanges: ["*"] },
    'sets the resource option replaceOnChanges: ["*"], which cannot work here',
  ],
];

/** Accepted by the provider as it stands (the API may still refuse some: see faults.test.ts). */
const accepted: Array<[string, unknown]> = [
  ["userName of 256 characters", { userName: "b".repeat(256) }],
  ["non-ASCII userName", { userName: "app-prød-ü" }],
  ["persistPassword false", { userName: "ok-e", persistPassword: false }],
  // Auto-naming: the plugin's check generates the name (test/e2e/engine/rotation.test.ts).
  ["no userName", {}],
  ["only persistPassword", { persistPassword: true }],
];

describe("plain values and unworkable resource options: the constructor refuses them (INVALID_INPUT, the field named)", () => {
  test("every case in one preview: each refused, no request", async () => {
    const cases: Case[] = [
      ...refused.map(([, args], i): Case => ({ name: `p${i}`, args, route: "plain" })),
      ...accepted.map(([, args], i): Case => ({ name: `a${i}`, args, route: "plain" })),
      ...refusedOptions.map(([, opts], i): Case => ({
        name: `o${i}`,
        args: { userName: `ok-o${i}` },
        opts,
        route: "plain",
      })),
    ];
    const r = await preview(cases);
    expect(r.code, r.output).not.toBe(0);
    // Not anchored: the program's lines share stdout with the CLI's progress lines.
    const lines = new Map([...r.output.matchAll(/HOSTILE (\S+) ([^\n]*)/g)].map((m) => [m[1], m[2]]));
    refused.forEach(([label, , text], i) => {
      const line = lines.get(`p${i}`);
      expect(line, label).toBeDefined();
      expect(line, label).toContain("[INVALID_INPUT]");
      expect(line, label).toContain(text);
    });
    accepted.forEach(([label], i) => expect(lines.get(`a${i}`), label).toBe("accepted"));
    refusedOptions.forEach(([label, , text], i) =>
      expect(lines.get(`o${i}`), label).toContain(`[INVALID_INPUT] StorageUser 'o${i}' ${text}`),
    );
    expect(r.output).toContain(`${refused.length + refusedOptions.length} StorageUser constructor(s) threw`);
    expect(api.requests).toHaveLength(0);
  });
});

test("left uncaught, a constructor error fails the preview as a program error that says each thing once", async () => {
  const r = await preview([{ name: "once", args: { userName: "ok", pasword: "x" }, route: "plain-throw" }]);
  expect(r.code, r.output).not.toBe(0);
  expect(r.output).toContain(
    "[INVALID_INPUT] StorageUser 'once' has invalid arguments: pasword is not a StorageUser argument: the arguments are userName, persistPassword, connection",
  );
  // The CLI shows an error on its progress row and again under Diagnostics; the diagnostic itself
  // says each thing once.
  const diagnostics = r.output.slice(r.output.indexOf("Diagnostics:"));
  expect(diagnostics.match(/\[INVALID_INPUT\]/g), r.output).toHaveLength(1);
  expect(diagnostics.match(/userName, persistPassword/g)).toHaveLength(1);
  // Printed as the message it is, not as a crash: no "unhandled exception", no stack trace.
  expect(r.output).not.toContain("unhandled exception");
  expect(r.output).not.toMatch(/at new StorageUser|storage-user\.js:\d+/);
  expect(api.requests).toHaveLength(0);
});

// Each rule of the provider's check, in-process: test/unit/input-rules.test.ts. Here, one failure of
// each property as the CLI reports it.
describe("Output values: the provider's check refuses them, naming the property", () => {
  test.each<[string, unknown, string, string]>([
    ["empty userName", { userName: "" }, "userName", "must not be empty"],
    [
      'persistPassword "true"',
      { userName: "ok-f", persistPassword: "true" },
      "persistPassword",
      'must be true or false, got "true"',
    ],
  ])("%s", async (_label, args, property, reason) => {
    const r = await preview([{ name: "out", args, route: "output" }]);
    expect(r.code, r.output).not.toBe(0);
    expect(r.output).toMatch(
      new RegExp(`resource 'out': property ${property} value [\\s\\S]*? has a problem: ${escape(reason)}`),
    );
    expect(api.requests).toHaveLength(0);
  });

  test("an unknown argument is refused by name whatever its value, and its value is not echoed", async () => {
    // Only known arguments reach the provider, so the constructor checks names even of Outputs.
    const r = await preview([{ name: "out", args: { userName: "ok-h", pasword: "hunter2" }, route: "output" }]);
    expect(r.code, r.output).not.toBe(0);
    expect(r.output).toContain(
      "[INVALID_INPUT] StorageUser 'out' has invalid arguments: pasword is not a StorageUser argument",
    );
    expect(r.output).not.toContain("hunter2");
    expect(api.requests).toHaveLength(0);
  });
});

// Each base URL rule, in-process (https to a remote host accepted among them): test/unit/input-rules.test.ts.
describe("configuration: refused at preview, naming storage:baseUrl", () => {
  const valid = [{ name: "cfg", args: { userName: "cfg-user" }, route: "output" as Route }];
  test.each<[string, string | undefined, string]>([
    ["missing", undefined, "[CONFIG_MISSING] no storage API address is configured"],
    [
      "credentials in the URL",
      "https://admin:s3cr3t-pw@storage.example.com",
      "[CONFIG_INVALID] STORAGE_API_URL contains user info",
    ],
  ])("%s", async (_label, url, text) => {
    const r = await preview(valid, { STORAGE_API_URL: url });
    expect(r.code, r.output).not.toBe(0);
    // Reported against the resource, not as an input whose value the engine shows as {<nil>}.
    expect(r.output).not.toContain("{<nil>}");
    expect(r.output).toContain(text);
    expect(r.output, "the URL's password is not echoed").not.toContain("s3cr3t-pw");
    expect(api.requests).toHaveLength(0);
  });

  test("stack config storage:baseUrl wins over the environment and is checked the same way", async () => {
    const r = await stack.preview(
      ["-c", `hostile:cases=${JSON.stringify(valid)}`, "-c", "storage:baseUrl=ftp://127.0.0.1/"],
      {
        env: { STORAGE_API_URL: api.url },
      },
    );
    await stack.must(["config", "rm", "storage:baseUrl"]);
    expect(r.code, r.output).not.toBe(0);
    expect(r.output).toContain("[CONFIG_INVALID] storage:baseUrl uses ftp:");
    expect(api.requests).toHaveLength(0);
  });
});

describe("the token: refused when it could inject a header", () => {
  const one = [{ name: "tok", args: { userName: "tok-user" }, route: "output" as Route }];

  // Preview without a token, and up without one ([CONFIG_MISSING]), are test/e2e/engine/lifecycle.test.ts's.
  test("up with a token that has a line break: [CONFIG_INVALID], no request, nothing recorded", async () => {
    const r = await stack.up(["-c", `hostile:cases=${JSON.stringify(one)}`], {
      env: { STORAGE_API_URL: api.url, STORAGE_ACCESS_TOKEN: `${token}\nX-Injected: 1` },
    });
    expect(r.code, r.output).not.toBe(0);
    expect(r.output).toContain("[CONFIG_INVALID] STORAGE_ACCESS_TOKEN contains whitespace or control characters");
    expect(r.output).not.toContain(token);
    expect(api.requests).toHaveLength(0);
    expect(await stack.resources(TYPE)).toHaveLength(0);
  });
});

describe("values unknown during preview pass check", () => {
  test("userName and persistPassword computed from another StorageUser's userId: preview passes, up creates both", async () => {
    const cases: Case[] = [
      { name: "later", args: { userName: "later-<id>", persistPassword: true }, route: "unknown" },
    ];
    const r = await preview(cases);
    expect(r.code, r.output).toBe(0);
    expect(r.output).toMatch(/\+\s+pulumi-nodejs:dynamic\/storage:StorageUser later-source create/);
    expect(r.output).toMatch(/\+\s+pulumi-nodejs:dynamic\/storage:StorageUser later create/);
    expect(api.requests).toHaveLength(0);

    const up = await stack.up(["-c", `hostile:cases=${JSON.stringify(cases)}`], {
      env: { STORAGE_API_URL: api.url, STORAGE_ACCESS_TOKEN: token },
    });
    expect(up.code, up.output).toBe(0);
    const source = api.users.find((u) => u.Name === "later-source");
    expect(source).toBeDefined();
    expect(api.users.map((u) => u.Name).sort()).toEqual([`later-${source!.Id}`, "later-source"]);
    expect(api.users.find((u) => u.Name === `later-${source!.Id}`)?.PersistPassword).toBe(1);
    expect(api.createAttempts).toBe(2);
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
