// `pendingStorageUsers` and the bin `pulumi-storage-user pending`: which pending operations of an
// exported deployment name a user that may exist unrecorded, what is printed for each, the exit
// statuses scripts rely on, and that no secret value is ever printed. The shapes below are the
// engine's (apitype.DeploymentV3 / OperationV2, as `pulumi stack export` v3.250.0 prints them);
// test/force-stop.test.ts runs the function and the bin, as `npx pulumi-storage-user` from the
// installed package, on a real export of a killed run; here the bin is the built one (dist/), so
// this file needs no CLI and no install (the unit tier).
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { describe, expect, test } from "vitest";
import { repoRoot } from "../scripts/toolchain";
import { formatPendingStorageUser, PendingInputError, pendingStorageUsers } from "../provider/pending";

const SIG = "4dabf18193072939515e22adb298388d";
const TYPE = "pulumi-nodejs:dynamic/storage:StorageUser";
const urn = (name: string, type = TYPE) => `urn:pulumi:dev::app::${type}::${name}`;
const SECRET_NAME = "secret-name-value-9f3e";
const SECRET_CONN = "secret-conn-value-7a1c";

function op(type: string, name: string, inputs: Record<string, unknown>, resourceType = TYPE) {
  return { type, resource: { urn: urn(name, resourceType), custom: true, type: resourceType, inputs: { __provider: "exports.handler = __f0;", ...inputs } } };
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
      op("creating", "hidden", { userName: { [SIG]: "1b47061264138c4ac30d75fd1eb44270", ciphertext: SECRET_NAME }, connection: { [SIG]: "1b47061264138c4ac30d75fd1eb44270", ciphertext: SECRET_CONN } }),
      // A StorageUser's update and delete call no API: nothing can have been created.
      op("updating", "upd", { userName: "not-listed-upd" }),
      op("deleting", "del", { userName: "not-listed-del" }),
      // Another resource type, even with a userName input: not ours.
      op("creating", "other", { userName: "not-listed-other" }, "pulumi-nodejs:dynamic:Resource"),
      op("creating", "ledger", {}, "pulumi-nodejs:dynamic/storage:StorageUserLedger"),
    ],
  },
};

describe("pendingStorageUsers", () => {
  test("lists exactly the pending StorageUser creates, from an export, its .deployment and a file backend checkpoint", () => {
    const expected = [
      { userName: "su-7k2m9x", connection: undefined, connectionIsSecret: false, urn: urn("auto-0"), operation: "creating" },
      { userName: "alice", connection: "eu", connectionIsSecret: false, urn: urn("named"), operation: "creating" },
      { userName: undefined, connection: undefined, connectionIsSecret: true, urn: urn("hidden"), operation: "creating" },
    ];
    expect(pendingStorageUsers(exported)).toEqual(expected);
    expect(pendingStorageUsers(exported.deployment)).toEqual(expected);
    expect(pendingStorageUsers({ version: 3, checkpoint: { stack: "dev", latest: exported.deployment } })).toEqual(expected);
  });

  test("nothing pending: an empty list (also for an empty stack's checkpoint and export)", () => {
    expect(pendingStorageUsers({ version: 3, deployment: { manifest: {}, resources: exported.deployment.resources } })).toEqual([]);
    expect(pendingStorageUsers({ version: 3, checkpoint: { stack: "dev" } })).toEqual([]);
    expect(pendingStorageUsers({ version: 3, deployment: { manifest: {} } })).toEqual([]);
  });

  test("lines name user, service and URN, and never a secret value", () => {
    const lines = pendingStorageUsers(exported).map(formatPendingStorageUser);
    expect(lines[0]).toBe(`su-7k2m9x\tdefault connection (storage:baseUrl)\t${urn("auto-0")}`);
    expect(lines[1]).toBe(`alice\tconnection eu\t${urn("named")}`);
    expect(lines[2]).toMatch(/^\(secret userName: .*\)\ta connection whose name is secret\t/);
    expect(lines.join("\n")).not.toContain(SECRET_NAME);
    expect(lines.join("\n")).not.toContain(SECRET_CONN);
  });

  test.each([
    ["a string", "text"],
    ["null", null],
    ["a list", []],
    ["an object of another kind", { stack: "dev" }],
    ["pending_operations not a list", { deployment: { pending_operations: {} } }],
  ])("%s: PendingInputError [PENDING_INPUT_UNREADABLE]", (_what, input) => {
    let caught: unknown;
    try {
      pendingStorageUsers(input);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(PendingInputError);
    expect((caught as PendingInputError).code).toBe("PENDING_INPUT_UNREADABLE");
    expect((caught as Error).message).toMatch(/^\[PENDING_INPUT_UNREADABLE\] .*: pass the output of `pulumi stack export`/);
  });
});

describe("the bin, as built (package.json \"bin\")", () => {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "psu-pending-"));
  const pkg = JSON.parse(fs.readFileSync(path.join(repoRoot, "package.json"), "utf8"));
  const bin = path.join(repoRoot, pkg.bin["pulumi-storage-user"]);
  /** `pulumi-storage-user ...` as npx starts it: the bin's file under this Node.js. */
  const npx = (args: string[], input?: string) => spawnSync(process.execPath, [bin, ...args], { cwd: work, input, encoding: "utf8" });

  test("pending on standard input: one line per user, exit 1", () => {
    const r = npx(["pending"], JSON.stringify(exported));
    expect(r.status).toBe(1);
    expect(r.stdout.trim().split("\n")).toEqual(pendingStorageUsers(exported).map(formatPendingStorageUser));
    expect(r.stderr).toContain("3 StorageUser create(s) were in flight");
    expect(r.stdout + r.stderr).not.toContain(SECRET_NAME);
    expect(r.stdout + r.stderr).not.toContain(SECRET_CONN);
  });

  test("pending on a file; none pending: exit 0 and no output", () => {
    const file = path.join(work, "export.json");
    fs.writeFileSync(file, JSON.stringify(exported));
    const r = npx(["pending", file]);
    expect(r.status).toBe(1);
    expect(r.stdout.trim().split("\n")).toHaveLength(3);
    const clean = path.join(work, "clean.json");
    fs.writeFileSync(clean, JSON.stringify({ version: 3, deployment: { manifest: {}, resources: [] } }));
    const none = npx(["pending", clean]);
    expect([none.status, none.stdout]).toEqual([0, ""]);
  });

  test.each([["--help"], ["pending", "--help"], ["help"]])("%s %s: what pending does and its exit statuses, exit 0", (...args) => {
    const r = npx(args.filter(Boolean));
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^usage: pulumi stack export \| pulumi-storage-user pending/);
    expect(r.stdout).toContain("Exit status: 1 when there are any, 0 when none, 2 when the input cannot be read.");
  });

  test.each([
    ["not JSON", ["pending"], "{ not json", /^\[PENDING_INPUT_UNREADABLE\] standard input is not JSON \(10 bytes\)/],
    ["empty input", ["pending"], "", /^\[PENDING_INPUT_UNREADABLE\] standard input is not JSON \(empty\)/],
    ["no deployment", ["pending"], '{"stack":"dev"}', /^\[PENDING_INPUT_UNREADABLE\] the input has neither/],
    ["missing file", ["pending", "/nonexistent/export.json"], undefined, /^\[PENDING_INPUT_UNREADABLE\] cannot read \/nonexistent\/export.json \(ENOENT\)/],
    ["unknown command", ["frobnicate"], undefined, /^\[USAGE\] unknown command/],
  ])("%s: exit 2 with a coded message", (_what, args, input, message) => {
    const r = npx(args, input);
    expect(r.status).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr.split("\n").filter((l) => !l.startsWith("npm warn")).join("\n")).toMatch(message);
  });
});
