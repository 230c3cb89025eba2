// A program whose process has no stack formatter (Error.prepareStackTrace unset: plain Node.js, no source maps)
// constructs StorageUser and StorageUserLedger as any other (e135861): the package trims the stacks it records only
// when there is a formatter to map frames with, and leaves the process as it found it.
import * as pulumi from "@pulumi/pulumi";
import { afterAll, beforeAll, expect, test } from "vitest";
import { storageUserMocks } from "../../provider/testing";

const formatter = () => Reflect.get(Error, "prepareStackTrace") as unknown;
const installed = formatter();
beforeAll(() => pulumi.runtime.setMocks(storageUserMocks(), "project", "stack", false));
afterAll(() => void Reflect.set(Error, "prepareStackTrace", installed));

test("with Error.prepareStackTrace unset, a StorageUser and its ledger construct and register; it stays unset", async () => {
  // The built classes, as a program loads them from the package.
  const { StorageUser, StorageUserLedger } = await import("../../dist/provider/index");
  Reflect.set(Error, "prepareStackTrace", undefined); // as in a process with no source-map support
  const user = new StorageUser("plain", { userName: "plain-user" });
  const ledger = new StorageUserLedger("ledger", { users: [user] });
  expect(formatter()).toBeUndefined();
  const value = <T>(o: pulumi.Output<T>) => new Promise<T>((resolve) => o.apply(resolve));
  const registered = await Promise.all([value(user.userName), value(user.urn), value(ledger.urn)]);
  expect(registered).toStrictEqual([
    "plain-user",
    "urn:pulumi:stack::project::pulumi-nodejs:dynamic/storage:StorageUser::plain",
    "urn:pulumi:stack::project::pulumi-nodejs:dynamic/storage:StorageUserLedger::ledger",
  ]);
  // A stack made after the constructors is Node's own, whole.
  expect(new Error("after").stack).toMatch(/^Error: after\n\s+at /);
  expect(formatter()).toBeUndefined();
});
