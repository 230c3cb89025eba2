// `pendingStorageUsers` and the bin `pulumi-storage-user pending`: which pending operations of an
// exported deployment name a user that may exist unrecorded, what is printed for each, the exit
// statuses scripts rely on, and that no secret value is ever printed. The shapes below are the
// engine's (apitype.DeploymentV3 / OperationV2, as `pulumi stack export` v3.250.0 prints them);
// test/e2e/engine/force-stop.test.ts runs the function and the bin, as `npx pulumi-storage-user` from the
// installed package, on a real export of a killed run; here the bin is the built one (dist/), so
// this file needs no CLI and no install (the unit tier).
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { describe, expect, test } from "vitest";
import { repoRoot } from "../../scripts/toolchain";
import { StorageUserError } from "../../provider/messages";
import { formatPendingStorageUser, pendingStorageUsers } from "../../provider/core/pending";

const SIG = "4dabf18193072939515e22adb298388d";
const TYPE = "pulumi-nodejs:dynamic/storage:StorageUser";
const urn = (name: string, type = TYPE) => `urn:pulumi:dev::app::${type}::${name}`;
const SECRET_NAME = "secret-name-value-9f3e";
const SECRET_CONN = "secret-conn-value-7a1c";

function op(type: string, name: string, inputs: Record<string, unknown>, resourceType = TYPE) {
  return {
    type,
    resource: {
      urn: urn(name, resourceType),
      custom: true,
      type: resourceType,
      inputs: { __provider: "exports.handler = __f0;", ...inputs },
    },
  };
}

/** A deployment as `pulumi stack export` prints it, with every kind of pending operation. */
const exported = {
  version: 3,
  deployment: {
    manifest: { time: "2026-11-24T23:00:00Z", magic: "x", version: "v3.250.0" },
    secrets_providers: { type: "passphrase", state: { salt: "v1:abc" } },
    resources: [{ urn: urn("kept"), custom: true, id: "1001", type: TYPE, inputs: { userName: "kept-user" } }],
    pending_operations: [
      op("creating", "auto-0", { userName: "su-7k2m9x", persistPassword: false }),
      op("creating", "named", { userName: "alice", connection: "eu" }),
      op("creating", "hidden", {
        userName: { [SIG]: "1b47061264138c4ac30d75fd1eb44270", ciphertext: SECRET_NAME },
        connection: { [SIG]: "1b47061264138c4ac30d75fd1eb44270", ciphertext: SECRET_CONN },
      }),
      // A StorageUser's update and delete call no API: nothing can have been created.
      op("updating", "upd", { userName: "not-listed-upd" }),
      op("deleting", "del", { userName: "not-listed-del" }),
      // Another resource type, even with a userName input: not ours.
      op("creating", "other", { userName: "not-listed-other" }, "pulumi-nodejs:dynamic:Resource"),
      op("creating", "ledger", {}, "pulumi-nodejs:dynamic/storage:StorageUserLedger"),
    ],
  },
};

/** The same stack later: a recovery `up` created `alice` under her given name; the pending operations outlive it. */
const alice = { userName: "alice", connection: "eu" };
const later = {
  version: 3,
  deployment: {
    ...exported.deployment,
    manifest: { ...exported.deployment.manifest, time: "2026-11-25T01:00:00Z" },
    resources: [
      ...exported.deployment.resources,
      { urn: urn("named"), custom: true, id: "1002", type: TYPE, inputs: { ...alice }, outputs: { ...alice } },
    ],
  },
};
const checkpointOf = (deployment: object) => ({ version: 3, checkpoint: { stack: "dev", latest: deployment } });

describe("pendingStorageUsers", () => {
  test("lists exactly the pending StorageUser creates, from an export, its .deployment and a file backend checkpoint", () => {
    const unaccounted = (name: string, userName?: string, connection?: string, connectionIsSecret = false) => {
      return { userName, connection, connectionIsSecret, urn: urn(name), operation: "creating", status: "unaccounted" };
    };
    const expected = [
      unaccounted("auto-0", "su-7k2m9x"),
      unaccounted("named", "alice", "eu"),
      unaccounted("hidden", undefined, undefined, true),
    ];
    for (const input of [exported, exported.deployment, checkpointOf(exported.deployment)])
      expect(pendingStorageUsers(input)).toEqual(expected);
  });

  test("a YAML or Go program's create (the plugin's type): the name its suffix gives, in stack once recorded", () => {
    const PLUGIN = "storage-user:index:StorageUser";
    const deployment = {
      manifest: { time: "2026-11-27T00:00:00Z" },
      resources: [{ urn: urn("done", PLUGIN), type: PLUGIN, inputs: { __nameSuffix: "1a2b3c4" }, outputs: {} }],
      pending_operations: [
        op("creating", "app", { __nameSuffix: "9f8e7d6", persistPassword: false }, PLUGIN),
        op("creating", "done", { __nameSuffix: "1a2b3c4" }, PLUGIN),
      ],
    };
    expect(pendingStorageUsers(deployment).map((p) => [p.userName, p.status])).toEqual([
      ["app-9f8e7d6", "unaccounted"],
      ["done-1a2b3c4", "in stack"],
    ]);
  });

  test("nothing pending: an empty list (also for an empty stack's checkpoint and export)", () => {
    const resources = exported.deployment.resources;
    for (const input of [
      { deployment: { manifest: {}, resources } },
      { checkpoint: { stack: "dev" } },
      { deployment: { manifest: {} } },
    ])
      expect(pendingStorageUsers({ version: 3, ...input })).toEqual([]);
  });

  test("lines name user, service and URN, and never a secret value", () => {
    const lines = pendingStorageUsers(exported).map(formatPendingStorageUser);
    expect(lines).toStrictEqual([
      `su-7k2m9x\tdefault connection (storage:baseUrl)\t${urn("auto-0")}\tunaccounted`,
      `alice\tconnection eu\t${urn("named")}\tunaccounted`,
      expect.stringMatching(/^\(secret userName: .*\)\ta connection whose name is secret\t/),
    ]);
    for (const secret of [SECRET_NAME, SECRET_CONN]) expect(lines.join("\n")).not.toContain(secret);
  });

  test("several deployments (an export and history checkpoints): each user once, its status read against the newest", () => {
    const checkpoint = checkpointOf(exported.deployment);
    // Given in any order: the newest by manifest time is the reference.
    for (const inputs of [
      [checkpoint, later, checkpoint],
      [later, checkpoint],
    ]) {
      expect(pendingStorageUsers(inputs).map((p) => [p.userName, p.status])).toEqual([
        ["su-7k2m9x", "unaccounted"],
        ["alice", "in stack"],
        [undefined, "unaccounted"],
      ]);
    }
    // The same user name on another connection is another user: not in the stack.
    const elsewhere = structuredClone(later);
    const moved = elsewhere.deployment.resources[1] as { inputs: typeof alice; outputs: typeof alice };
    moved.inputs.connection = moved.outputs.connection = "us";
    const found = pendingStorageUsers([checkpoint, elsewhere]);
    expect(found.find((p) => p.userName === "alice")?.status).toBe("unaccounted");
  });

  test("dealtWith: names, or lines an earlier run printed, mark those users dealt with", () => {
    const earlier = pendingStorageUsers(exported).map(formatPendingStorageUser);
    const statuses = (dealtWith: string[]) => pendingStorageUsers(exported, { dealtWith }).map((p) => p.status);
    expect(statuses([earlier[0]])).toEqual(["dealt with", "unaccounted", "unaccounted"]);
    expect(statuses(["alice", "", "  "])).toEqual(["unaccounted", "dealt with", "unaccounted"]);
  });

  test.each([
    ["a string", "text"],
    ["null", null],
    ["a list", []],
    ["an object of another kind", { stack: "dev" }],
    ["pending_operations not a list", { deployment: { pending_operations: {} } }],
  ])("%s: StorageUserError [PENDING_INPUT_UNREADABLE]", (_what, input) => {
    expect(() => pendingStorageUsers(input)).toThrow(StorageUserError);
    expect(() => pendingStorageUsers(input)).toThrow(
      expect.objectContaining({
        code: "PENDING_INPUT_UNREADABLE",
        details: expect.objectContaining({ problem: "notADeployment" }),
      }),
    );
  });
});

describe('the bin, as built (package.json "bin")', () => {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "psu-pending-"));
  const pkg = JSON.parse(fs.readFileSync(path.join(repoRoot, "package.json"), "utf8"));
  const bin = path.join(repoRoot, pkg.bin["pulumi-storage-user"]);
  /** `pulumi-storage-user ...` as npx starts it: the bin's file under this Node.js. */
  const npx = (args: string[], input?: string) =>
    spawnSync(process.execPath, [bin, ...args], { cwd: work, input, encoding: "utf8" });
  /** Writes `content` as JSON to a file of the work directory; its path. */
  const file = (name: string, content: object) => {
    fs.writeFileSync(path.join(work, name), JSON.stringify(content));
    return path.join(work, name);
  };
  /** The status column of each line printed. */
  const statuses = (stdout: string) =>
    stdout
      .trim()
      .split("\n")
      .map((l) => l.split("\t")[3]);

  test("pending on standard input or a file: one line per user, exit 1; none pending: exit 0 and no output", () => {
    for (const r of [npx(["pending"], JSON.stringify(exported)), npx(["pending", file("export.json", exported)])]) {
      expect(r.status).toBe(1);
      expect(r.stdout.trim().split("\n")).toEqual(pendingStorageUsers(exported).map(formatPendingStorageUser));
      expect(r.stderr).toContain("3 StorageUser create(s) were in flight");
      for (const secret of [SECRET_NAME, SECRET_CONN]) expect(r.stdout + r.stderr).not.toContain(secret);
    }
    const none = npx(["pending", file("clean.json", { version: 3, deployment: { manifest: {}, resources: [] } })]);
    expect([none.status, none.stdout]).toEqual([0, ""]);
  });

  test("several files and standard input: each user once with its status; --dealt-with takes an earlier run's output; exit 0 once none is unaccounted", () => {
    const first = file("checkpoint-1.json", checkpointOf(exported.deployment));
    const second = file("checkpoint-2.json", checkpointOf(later.deployment));
    const r = npx(["pending", "-", first, second], JSON.stringify(exported));
    expect(r.status).toBe(1);
    expect(statuses(r.stdout)).toEqual(["unaccounted", "in stack", "unaccounted"]);
    expect(r.stderr).toContain("3 StorageUser create(s) were in flight when a run stopped; 2 unaccounted");
    // The operator works through the list and keeps it; the next run names nothing new.
    const kept = path.join(work, "dealt-with.txt");
    fs.writeFileSync(kept, r.stdout.trim());
    const again = npx(["pending", "--dealt-with", kept, first, second]);
    expect(statuses(again.stdout)).toEqual(["dealt with", "in stack", "unaccounted"]);
    // The secret-named user cannot be matched by name: it stays unaccounted until the operator sees it with --show-secrets.
    expect(again.status).toBe(1);
    const withoutSecret = structuredClone(later);
    const ops = withoutSecret.deployment.pending_operations;
    withoutSecret.deployment.pending_operations = ops.filter((o) => o.resource.urn !== urn("hidden"));
    const done = npx(["pending", "--dealt-with", kept, file("checkpoint-2.json", withoutSecret)]);
    expect([done.status, statuses(done.stdout)]).toEqual([0, ["dealt with", "in stack"]]);
    expect(done.stderr).toContain("0 unaccounted");
  });

  test("no input on a terminal: the usage, exit 2, instead of waiting", () => {
    // `script` gives the bin a terminal as its standard input, as an operator's shell does.
    const r = spawnSync("script", ["-qec", `'${process.execPath}' '${bin}' pending`, "/dev/null"], {
      cwd: work,
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(r.status).toBe(2);
    expect(r.stdout).toMatch(/\[USAGE\] nothing piped in: usage: pulumi stack export \| pulumi-storage-user pending/);
  });

  test.each([["--help"], ["pending", "--help"], ["help"]])(
    "%s %s: what pending does and its exit statuses, exit 0",
    (...args) => {
      const r = npx(args.filter(Boolean));
      expect(r.status).toBe(0);
      expect(r.stdout).toMatch(/^usage: pulumi stack export \| pulumi-storage-user pending/);
      expect(r.stdout).toContain("Exit 1 when any is unaccounted, 0 when none, 2 when an input cannot be read.");
    },
  );

  test.each<[string, string[], string | undefined, RegExp]>([
    ["not JSON", ["pending"], "{ not json", /^\[PENDING_INPUT_UNREADABLE\] standard input is not JSON \(10 bytes\)/],
    ["empty input", ["pending"], "", /^\[PENDING_INPUT_UNREADABLE\] standard input is not JSON \(empty\)/],
    ["no deployment", ["pending"], '{"stack":"dev"}', /^\[PENDING_INPUT_UNREADABLE\] the input has neither/],
    ["a missing file", ["pending", "/nope"], undefined, /^\[PENDING_INPUT_UNREADABLE\] cannot read \/nope \(ENOENT\)/],
    ["unknown command", ["frobnicate"], undefined, /^\[USAGE\] unknown command/],
    ["no file", ["pending", "--dealt-with"], "{}", /^\[USAGE\] Option '--dealt-with <value>' argument missing/],
  ])("%s: exit 2 with a coded message", (_what, args, input, message) => {
    const r = npx(args, input);
    expect([r.status, r.stdout]).toEqual([2, ""]);
    expect(r.stderr.replace(/^npm warn.*\n/gm, "")).toMatch(message);
  });
});
