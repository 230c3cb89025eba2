// What preview, up, refresh, replace, rotation, resource options and destroy do for a create-only API:
// one stack (test/programs/options, a StorageUserLedger over all users) carries every step, each
// change previewed and applied once for all the users it concerns; then one refusal of each kind of
// input and configuration rule as the CLI reports it (every rule: test/unit/input-rules.test.ts).
import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { ApiServer, startApiServer } from "../../../server/api-server";
import { repoRoot, RunResult, TestStack } from "../../../scripts/stack";
import { failed, ok, onNewestCli } from "../../support/cli-project";
import { describeForgotten } from "../../../provider/messages";
import { errorSaid, errorWhat, reasons, warningSaid } from "../../support/said";

const token = "lifecycle-token-9c1e7f";
const TYPE = "pulumi-nodejs:dynamic/storage:StorageUser";
let api: ApiServer;
/** A second service, for replaceOnChanges: ["connection"]. */
let other: ApiServer;
beforeAll(async () => void ([api, other] = await Promise.all([startApiServer({ token }), startApiServer({ token })])));
afterAll(() => Promise.all([api?.close(), other?.close()]));

type Spec = Record<string, unknown> & { name: string };
type Row = { id: string; userName: string; baseUrl: string; connection: string | null };
const href = (url: string) => new URL(url).href;
const posts = () => api.createAttempts + other.createAttempts;
const named = (userName: string) => api.users.find((u) => u.Name === userName)!;
/** Every generated name of resource `name` that a command printed. */
const namesIn = (output: string, name: string) => [
  ...new Set(output.match(new RegExp(`\\b${name}-[0-9a-f]{7}\\b`, "g"))),
];
const left = (u: { userName: string; id: string | number }, url = api.url) =>
  warningSaid("USER_LEFT_STACK", { id: String(u.id), userName: u.userName, service: href(url), failed: false });

describe("one stack through preview, up, refresh, replace, rotation and destroy", () => {
  let stack: TestStack;
  let specs: Spec[] = [
    { name: "app", userName: "life-a" },
    { name: "rot", replacementTrigger: "1" }, // auto-named, with a trigger that changes later
    { name: "late" }, // auto-named, created without a trigger
    { name: "later", route: "unknown", args: { userName: "later-<id>", persistPassword: true } },
    { name: "prot", userName: "opt-prot", protect: true },
    { name: "keep", userName: "opt-keep", retainOnDelete: true },
    { name: "ign", userName: "opt-ign", ignoreChanges: ["userName"] },
    { name: "roc", userName: "opt-roc", replaceOnChanges: ["connection"] },
    { name: "mv", userName: "opt-mv", createTimeout: "45s" },
  ];
  const change = async (patches: Record<string, Record<string, unknown> | ((s: Spec) => Spec)>) => {
    specs = specs.map((s) => {
      const p = patches[s.name];
      return typeof p === "function" ? p(s) : p ? { ...s, ...p } : s;
    });
    await stack.must(["config", "set", "options:users", JSON.stringify(specs)]);
  };
  const rows = async () => (await stack.outputs()).users as Record<string, Row>;
  const forgotten = async () => (await stack.outputs()).forgotten as Array<Record<string, string>>;
  /** A user's S3 secret key as state holds it (decrypted by `stack export --show-secrets`). */
  const s3SecretOf = async (name: string) => {
    const r = (await stack.resources(TYPE, true)).find((x) => x.urn.endsWith(`::${name}`))!;
    return JSON.parse(JSON.parse(r.outputs.secrets.plaintext)).s3.secretKey as string;
  };
  let v1: Record<string, Row>;

  beforeAll(async () => {
    stack = await TestStack.create({
      programDir: "test/programs/options",
      config: {
        "storage:baseUrl": api.url,
        "storage:connections.other.baseUrl": other.url,
        "options:users": JSON.stringify(specs),
        "options:ledger": "true",
      },
    });
    await stack.must(["config", "set", "--path", "--secret", "storage:connections.other.accessToken"], {
      input: token,
    });
  });
  afterAll(() => stack?.dispose());

  test("preview needs no token and calls no API; a generated name is made at up, a computed one passes check", async () => {
    const r = ok(await stack.preview());
    for (const name of ["app", "rot", "later-source", "later", "prot"])
      expect(r.output).toMatch(new RegExp(`\\+\\s+pulumi-nodejs:dynamic/storage:StorageUser ${name} create`));
    // No generated name in a preview, rather than one the up would not create.
    expect(namesIn(r.output, "rot")).toEqual([]);
    expect(api.requests).toHaveLength(0);
  });

  test("up without a token fails before any request, and records nothing", async () => {
    const r = failed(await stack.up());
    expect(r.output).toContain(
      errorSaid("CONFIG_MISSING", {
        setting: "access token",
        key: "storage:accessToken",
        env: "STORAGE_ACCESS_TOKEN",
        path: false,
      }),
    );
    expect(api.requests).toHaveLength(0);
    expect(await stack.resources(TYPE)).toHaveLength(0);
  });

  test("up creates each user once, its id the user's Id; resource options and computed inputs are applied", async () => {
    await stack.must(["config", "set", "--secret", "storage:accessToken"], { input: token });
    ok(await stack.up());
    expect(api.users).toHaveLength(10);
    expect(api.createAttempts).toBe(10);
    v1 = await rows();
    const lifeA = named("life-a");
    expect(v1.app).toEqual({ id: String(lifeA.Id), userName: "life-a", baseUrl: href(api.url), connection: null });
    for (const name of ["rot", "late"]) expect(v1[name].userName).toMatch(new RegExp(`^${name}-[0-9a-f]{7}$`));
    const resources = await stack.resources(TYPE);
    const app = resources.find((x) => x.urn.endsWith("::app"))!;
    expect(JSON.parse(app.outputs.account)).toMatchObject({ state: "New", tasks: [{ id: lifeA.Tasks[0].Id }] });
    // Each resource's source position is the program's line that declared it, and its stack the program's frames alone.
    const lines = fs.readFileSync(path.join(repoRoot, "test/programs/options/index.ts"), "utf8").split("\n");
    const declared = (text: string) => {
      const i = lines.findIndex((l) => l.includes(text));
      return `project:///index.ts#${i + 1},${lines[i].indexOf(text) + 1}`;
    };
    const [user, ledger] = [declared("new StorageUser(s.name, args"), declared("new StorageUserLedger(")];
    expect(
      [app, ...(await stack.resources(`${TYPE}Ledger`))].map((r) => [r.sourcePosition, r.stackTrace]),
    ).toStrictEqual([
      [user, [{ sourcePosition: user }]],
      [ledger, [{ sourcePosition: ledger }]],
    ]);
    // customTimeouts.create is the create's whole budget.
    expect(resources.find((x) => x.urn.endsWith("::mv"))!.inputs.__createTimeoutMs).toBe(45_000);
    // Inputs unknown at preview, known at up: from the source user's id.
    const source = named("later-source");
    expect(named(`later-${source.Id}`).PersistPassword).toBe(1);
  });

  test("a second up is a no-op, with app's userName dropped (it keeps it) and a trigger added to a user created without one", async () => {
    await change({ app: ({ userName: _u, ...s }) => s, late: { replacementTrigger: "1" } });
    const r = ok(await stack.up());
    expect(r.output).not.toMatch(/replaced|created|updated/);
    expect(api.createAttempts).toBe(10);
    expect(await rows()).toEqual(v1);
  });

  test("refresh keeps the recorded state", async () => {
    const recorded = async () =>
      (await stack.resources(TYPE, true)).map((r) => ({ id: r.id, inputs: r.inputs, outputs: r.outputs }));
    const before = await recorded();
    ok(await stack.refresh());
    expect(await recorded()).toEqual(before);
    expect(JSON.stringify(before)).toContain(named("life-a").Password); // decrypted: the comparison means something
    expect(api.createAttempts).toBe(10);
  });

  test("one change to seven users, previewed then applied: a new userName, two triggers, retainOnDelete and replaceOnChanges replace, each old user named and in the ledger; ignoreChanges ignores it; aliases move one", async () => {
    const key1 = await s3SecretOf("rot");
    await change({
      app: { userName: "life-b" },
      rot: { replacementTrigger: "2" }, // the documented rotation
      late: { replacementTrigger: "2" },
      keep: { userName: "opt-keep-2" },
      roc: { connection: "other" },
      ign: { userName: "opt-ign-renamed" },
      // Renamed and re-parented in one step: the same user, an update of its recorded URN.
      mv: (s) => ({ ...s, name: "moved", parent: "box", aliases: [{ name: "mv", parent: "stack" }] }),
    });
    const pv = ok(await stack.preview(["--diff"]));
    expect(pv.output).toMatch(/5 to replace/);
    expect(pv.output).toMatch(/~ userName\s*: "life-a" => "life-b"/);
    // Preview, which CI reviews, says which user will stay on the service: id, name, service.
    const service = href(api.url);
    for (const [name, userName] of [
      ["app", "life-a"],
      ["keep", "opt-keep"],
    ])
      expect(pv.output).toContain(
        `warning: ${warningSaid("REPLACE_LEAVES_USER", { id: v1[name].id, userName, service, now: service })}`,
      );
    // The rotations: replaces the engine decides from the triggers, without the provider's diff, named all the same.
    for (const name of ["rot", "late"])
      expect(pv.output).toContain(
        `warning: ${warningSaid("REPLACE_LEAVES_USER", { userName: v1[name].userName, service, by: "engine" })}`,
      );
    // Each replace is named once (diff's own and the engine's do not both speak).
    expect(pv.output.match(/warning: \[REPLACE_LEAVES_USER\]/g)).toHaveLength(5);
    // Only the name of the rotated user that stays behind: the replacement's is made at up.
    expect(namesIn(pv.output, "rot")).toEqual([v1.rot.userName]);
    expect(posts()).toBe(10);

    const up = ok(await stack.up());
    expect(posts()).toBe(15); // app, rot, late, keep, roc; not ign, not moved
    const v2 = await rows();
    expect(v2.app).toMatchObject({ id: String(named("life-b").Id), userName: "life-b" });
    for (const name of ["rot", "late"]) {
      expect(v2[name].userName).toMatch(new RegExp(`^${name}-[0-9a-f]{7}$`));
      expect(v2[name].userName).not.toBe(v1[name].userName);
      expect(v2[name].id).not.toBe(v1[name].id);
    }
    expect(await s3SecretOf("rot")).not.toBe(key1);
    for (const u of [v1.app, v1.rot, v1.late, v1.roc]) expect(up.output).toContain(left(u));
    // retainOnDelete: the engine does not call the provider's delete, so no warning from it; the ledger has it.
    expect(up.output).not.toContain(left(v1.keep));
    const roc = other.users.find((u) => u.Name === "opt-roc")!;
    expect(v2.roc).toEqual({ id: String(roc.Id), userName: "opt-roc", baseUrl: href(other.url), connection: "other" });
    expect(v2.ign).toEqual(v1.ign);
    expect(api.users.some((u) => u.Name === "opt-ign-renamed")).toBe(false);
    const moved = (await stack.resources(TYPE)).find((x) => x.urn.endsWith("::moved"))!;
    expect(moved.urn).toContain("storage:test:Box$pulumi-nodejs:dynamic/storage:StorageUser::moved");
    expect(moved.id).toBe(v1.mv.id);
    const ledger = await forgotten();
    // The five let go of by this up, in the order the warning names them.
    expect(up.output).toContain(warningSaid("LEDGER_GREW", { added: ledger.slice(-5) as never, total: ledger.length }));
    const rot = { id: v1.rot.id, userName: v1.rot.userName, service: href(api.url), resourceName: "rot" };
    expect(ledger).toContainEqual({ ...rot, why: "replaced", onService: "exists", at: expect.any(String) });
    expect(new Date(ledger[0].at).toISOString()).toBe(ledger[0].at);
    expect(ledger.map((f) => f.id).sort()).toEqual([v1.app, v1.rot, v1.late, v1.keep, v1.roc].map((u) => u.id).sort());
  });

  test("`pulumi up --replace <urn>` rotates an auto-named user too", async () => {
    const v2 = (await rows()).rot;
    const urn = (await stack.resources(TYPE)).find((r) => r.urn.endsWith("::rot"))!.urn;
    const r = ok(await stack.up(["--replace", urn]));
    expect(new Set([v1.rot.userName, v2.userName, (await rows()).rot.userName]).size).toBe(3);
    expect(posts()).toBe(16);
    expect(r.output).toContain(left(v2));
  });

  test("replacing a named user on a service with unique names: [NAME_TAKEN], never advice to delete the live user; the old user untouched", async () => {
    const before = (await rows()).app;
    await change({ app: { persistPassword: true } }); // the same name, a new user
    const r = failed(await stack.up());
    const apiMessage = "a user named life-b already exists"; // the local API's 409 (server/api-server.ts)
    expect(r.output).toContain(errorSaid("NAME_TAKEN", { userName: "life-b", apiMessage }));
    expect(posts()).toBe(17);
    expect((await rows()).app).toEqual(before);
    await change({ app: ({ persistPassword: _p, ...s }) => s });
  });

  // Resource options on the pinned CLI alone, as before the merge; the next test's destroy runs protect on both.
  test.skipIf(onNewestCli)(
    "protect: a replace is refused by the engine before any create; the reverted NAME_TAKEN is not tried again",
    async () => {
      const before = await rows();
      await change({ prot: { userName: "opt-prot-2" } });
      const r = failed(await stack.up());
      expect(r.output).toMatch(/protect/i);
      expect(posts()).toBe(17);
      expect(await rows()).toEqual(before);
      await change({ prot: { userName: "opt-prot" } });
    },
  );

  // The ledger's own logic, which no CLI version changes: the pinned CLI's run (test/unit/ledger-logic.test.ts has the rest).
  test.skipIf(onNewestCli)(
    "an up that only lists users deleted on the service in cleanedUp drops them from the ledger and announces nothing",
    async () => {
      const before = await forgotten();
      await stack.must(["config", "set", "options:cleanedUp", JSON.stringify([v1.keep.id, v1.late.id])]);
      const r = ok(await stack.up());
      expect(r.output).not.toContain("StorageUserLedger:");
      expect(await forgotten()).toEqual(before.filter((f) => ![v1.keep.id, v1.late.id].includes(f.id)));
      const [ledger] = await stack.resources("pulumi-nodejs:dynamic/storage:StorageUserLedger");
      expect(ledger.outputs.__provider).toContain('require("pulumi-storage-user/dist/provider/ledger-runtime');
      expect(Buffer.byteLength(ledger.outputs.__provider)).toBeLessThan(512);
    },
  );

  test.skipIf(onNewestCli)(
    "a user whose create never confirmed keeps the ledger from updating until it is replaced; its own delete warning names it",
    async () => {
      // The API stores life-c but the answer never arrives: the stack records it as unconfirmed.
      api.inject({ kind: "drop", after: "create" });
      await change({ app: { userName: "life-c" } });
      const dropped = failed(await stack.up());
      const app = (await stack.resources(TYPE)).find((r) => r.urn.endsWith("::app"))!;
      const unconfirmed = app.id as string;
      // Recorded with the failure and no credentials, the way out named (faults.test.ts: each way a create ends).
      expect(dropped.output).toMatch(/\[OUTCOME_UNKNOWN\] the create request for 'life-c' was sent/);
      expect(dropped.output).toContain(`pulumi up --replace '${app.urn}'`);
      expect([app.outputs.__failure?.code, app.outputs.secrets]).toEqual(["OUTCOME_UNKNOWN", undefined]);
      expect(api.users.filter((u) => u.Name === "life-c")).toHaveLength(1); // the one the service stored
      expect(unconfirmed).toMatch(/^unconfirmed-/);
      const [ledger] = await stack.resources("pulumi-nodejs:dynamic/storage:StorageUserLedger");
      const lifeB = named("life-b");
      expect(ledger.outputs.current.app).toEqual({ id: String(lifeB.Id), userName: "life-b", service: href(api.url) });
      // refresh keeps the record (the next up's refusal is faults.test.ts's); a new name replaces it.
      ok(await stack.refresh());
      await change({ app: { userName: "life-d" } });
      const r = ok(await stack.up());
      expect(r.output).toContain(
        warningSaid("USER_LEFT_STACK", { id: unconfirmed, userName: "life-c", service: href(api.url), failed: true }),
      );
      expect((await forgotten()).map((f) => f.userName)).toContain("life-b");
      expect((await forgotten()).map((f) => f.userName)).not.toContain("life-c");
    },
  );

  test("destroy is refused while a user is protected; then it names every user left on the service", async () => {
    const prot = (await stack.resources(TYPE)).find((x) => x.urn.endsWith("::prot"))!;
    const refused = failed(await stack.destroy(["--target", prot.urn, "--target-dependents"]));
    expect(refused.output).toMatch(/protect/i);
    expect((await stack.resources(TYPE)).find((x) => x.urn.endsWith("::prot"))!.id).toBe(String(named("opt-prot").Id));
    await stack.must(["state", "unprotect", prot.urn, "--yes"]);
    const [users, app] = [api.users.length, (await rows()).app];
    const replaced = (await forgotten()).find((f) => f.id === v1.app.id)!;
    const r = ok(await stack.destroy());
    for (const u of [app, { userName: "opt-prot", id: named("opt-prot").Id }]) expect(r.output).toContain(left(u));
    // The ledger, destroyed with the users (or with the protected one's dependents), lists those it let go of and those it tracked.
    const said = refused.output + r.output;
    expect(said).toContain("[LEDGER_DELETED] ");
    expect([replaced.userName, replaced.why]).toStrictEqual(["life-a", "replaced"]);
    expect(said).toContain(describeForgotten(replaced as never));
    expect(said).toContain(
      describeForgotten({ id: app.id, userName: app.userName, service: href(api.url), resourceName: "app" }),
    );
    expect(await stack.resources(TYPE)).toHaveLength(0);
    expect(api.users).toHaveLength(users);
  });
});

describe("refused at preview, before any request", () => {
  let stack: TestStack;
  beforeAll(
    async () =>
      void (stack = await TestStack.create({ programDir: "test/programs/options", config: { "options:users": "[]" } })),
  );
  afterAll(() => stack?.dispose());
  /** A preview of `specs` (set by -c, which the CLI also saves), with the API in the environment unless `env` says otherwise. */
  const preview = (specs: Spec[], env: Record<string, string | undefined> = { STORAGE_API_URL: api.url }) =>
    stack.preview(["-c", `options:users=${JSON.stringify(specs)}`], { env });
  const refusedBefore = (r: RunResult, requests: number) => {
    expect(r.code, r.output).not.toBe(0);
    expect(api.requests.length).toBe(requests);
  };

  test.each(["import", "get"])("adopting an existing user (%s) fails and says why", async (route) => {
    const requests = api.requests.length;
    const r = await preview([{ name: "adopted", userName: "existing", route }]);
    refusedBefore(r, requests);
    expect(r.output).toContain(errorSaid("IMPORT_UNSUPPORTED", { name: "adopted" }));
  });

  /** [args, the failure naming the field]: one case of each rule the constructor applies (INVALID_INPUT). */
  /** [args, the property and why it is refused; none: the arguments are no object]. */
  const refused: Array<[unknown, string?, string?]> = [
    [{ userName: "" }, "userName", reasons.userNameEmpty()],
    [{ userName: "   " }, "userName", reasons.userNameBlank()],
    [{ userName: " app-prod" }, "userName", reasons.userNameSpaces("app-prod")],
    [{ userName: 42 }, "userName", reasons.userNameNotString(42)],
    [{ userName: null }, "userName", reasons.userNameNotString(null)],
    [{ userName: "a".repeat(257) }, "userName", reasons.userNameLong(257, 256)],
    [{ userName: "app\u2028prod" }, "userName", reasons.userNameControl()],
    [{ userName: "ok-a", persistPassword: "true" }, "persistPassword", reasons.notABoolean("true")],
    [{ userName: "ok-c", pasword: "hunter2" }, "pasword", reasons.notAnArgument()],
    [{ UserName: "ok-d" }, "UserName", reasons.notAnArgument()], // the API's spelling
    [{ userName: "ok-f", connection: "EU West" }, "connection", reasons.notAConnectionName("EU West")],
    [null],
    ["app-prod"],
  ];
  /** What the constructor throws for refused[i], as far as the arguments decide it. */
  const refusal = (i: number) => {
    const [, property, reason] = refused[i];
    const name = `p${i}`;
    return property === undefined
      ? errorSaid("INVALID_INPUT", { problem: "noArguments", name })
      : errorWhat("INVALID_INPUT", { problem: "invalidArguments", name, failures: [{ property, reason: reason! }] });
  };
  /** Accepted by the constructor (the API may still refuse some: faults.test.ts). */
  const accepted = [{ userName: "b".repeat(256) }, { userName: "app-prød-ü" }, { persistPassword: false }, {}];
  /** The resource options that cannot work with a create-only API. */
  const refusedOptions: Array<[Record<string, unknown>, "deleteBeforeReplace" | 'replaceOnChanges: ["*"]']> = [
    [{ deleteBeforeReplace: true }, "deleteBeforeReplace"],
    [{ replaceOnChanges: ["*"] }, 'replaceOnChanges: ["*"]'],
  ];

  test.skipIf(onNewestCli)(
    "every constructor case in one preview: each refused naming the field, or accepted; an unknown argument's value never echoed, as an Output too",
    async () => {
      const requests = api.requests.length;
      const r = await preview([
        ...refused.map(([args], i): Spec => ({ name: `p${i}`, args, route: "catch" })),
        ...accepted.map((args, i): Spec => ({ name: `a${i}`, args, route: "catch" })),
        ...refusedOptions.map(([opts], i): Spec => ({ name: `o${i}`, userName: `ok-o${i}`, route: "catch", ...opts })),
        // Only known arguments reach the provider, so the constructor checks the names of Outputs too.
        { name: "out", args: { userName: "ok-h", pasword: "hunter2" }, route: "output" },
      ]);
      refusedBefore(r, requests);
      // Not anchored: the program's lines share stdout with the CLI's progress lines.
      const lines = new Map([...r.output.matchAll(/HOSTILE (\S+) ([^\n]*)/g)].map((m) => [m[1], m[2]]));
      refused.forEach(([args], i) => expect(lines.get(`p${i}`), JSON.stringify(args)).toContain(refusal(i)));
      accepted.forEach((args, i) => expect(lines.get(`a${i}`), JSON.stringify(args)).toBe("accepted"));
      refusedOptions.forEach(([opts, option], i) =>
        expect(lines.get(`o${i}`), JSON.stringify(opts)).toContain(
          errorSaid("INVALID_INPUT", { problem: "unsupportedOption", name: `o${i}`, option }),
        ),
      );
      const pasword = [{ property: "pasword", reason: reasons.notAnArgument() }];
      expect(lines.get("out")).toContain(
        errorWhat("INVALID_INPUT", { problem: "invalidArguments", name: "out", failures: pasword }),
      );
      expect(r.output).toContain(`${refused.length + refusedOptions.length + 1} StorageUser constructor(s) threw`);
      expect(r.output).not.toContain("hunter2");
    },
  );

  test.skipIf(onNewestCli)(
    "left uncaught, a constructor error fails the preview as a program error that says each thing once",
    async () => {
      const requests = api.requests.length;
      const r = await preview([{ name: "once", args: { userName: "ok", pasword: "x" } }]);
      refusedBefore(r, requests);
      const failures = [{ property: "pasword", reason: reasons.notAnArgument() }];
      const accepted = ["userName", "persistPassword", "connection"];
      expect(r.output).toContain(
        errorSaid("INVALID_INPUT", { problem: "invalidArguments", name: "once", failures, accepted }),
      );
      // The CLI shows an error on its progress row and again under Diagnostics, which says each thing once.
      const diagnostics = r.output.slice(r.output.indexOf("Diagnostics:"));
      expect(diagnostics.match(/\[INVALID_INPUT\]/g), r.output).toHaveLength(1);
      expect(diagnostics.match(/userName, persistPassword/g)).toHaveLength(1);
      // A message, not a crash: no "unhandled exception", no stack trace.
      expect(r.output).not.toContain("unhandled exception");
      expect(r.output).not.toMatch(/at new StorageUser|storage-user\.js:\d+/);
    },
  );

  test.skipIf(onNewestCli)("an Output value: the provider's check refuses it, naming the property", async () => {
    const requests = api.requests.length;
    const r = await preview([{ name: "out", userName: "", route: "output" }]);
    refusedBefore(r, requests);
    expect(r.output).toContain("resource 'out': property userName value");
    expect(r.output).toContain(`has a problem: ${reasons.userNameEmpty()}`);
  });

  test.skipIf(onNewestCli).each<[string, boolean, string[], string]>([
    [
      "no base URL anywhere",
      false,
      [],
      errorSaid("CONFIG_MISSING", { setting: "address", key: "storage:baseUrl", env: "STORAGE_API_URL", path: false }),
    ],
    // Stack config wins over the environment, and is checked the same way.
    [
      "credentials in the stack config's URL, a good one in the environment",
      true,
      ["-c", "storage:baseUrl=https://admin:s3cr3t-pw@storage.example.com"],
      errorSaid("CONFIG_INVALID", { problem: "userInfo", source: "storage:baseUrl" }),
    ],
  ])("configuration: %s is refused against the resource", async (_label, envUrl, extra, text) => {
    const requests = api.requests.length;
    const specs = JSON.stringify([{ name: "cfg", userName: "cfg-user", route: "output" }]);
    const r = await stack.preview(["-c", `options:users=${specs}`, ...extra], {
      env: { STORAGE_API_URL: envUrl ? api.url : undefined },
    });
    if (extra.length) await stack.must(["config", "rm", "storage:baseUrl"]);
    refusedBefore(r, requests);
    expect(r.output).toContain(text);
    // Reported against the resource, not as an input whose value the engine shows as {<nil>}.
    expect(r.output).not.toContain("{<nil>}");
    expect(r.output, "the URL's password is not echoed").not.toContain("s3cr3t-pw");
  });

  test.skipIf(onNewestCli)(
    "up with a token that has a line break: [CONFIG_INVALID], no request, nothing recorded",
    async () => {
      const requests = api.requests.length;
      const r = await stack.up(["-c", `options:users=${JSON.stringify([{ name: "tok", userName: "tok-user" }])}`], {
        env: { STORAGE_API_URL: api.url, STORAGE_ACCESS_TOKEN: `${token}\nX-Injected: 1` },
      });
      refusedBefore(r, requests);
      expect(r.output).toContain(
        errorSaid("CONFIG_INVALID", { problem: "tokenWhitespace", source: "STORAGE_ACCESS_TOKEN" }),
      );
      expect(r.output).not.toContain(token);
      expect(await stack.resources(TYPE)).toHaveLength(0);
    },
  );
});
