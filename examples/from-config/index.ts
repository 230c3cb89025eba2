// One StorageUser per entry of the stack config list `users`, plus the ledger of users the
// stack has let go of (the service has no delete call, so they stay there until you act).
import * as pulumi from "@pulumi/pulumi";
import { StorageUser, StorageUserLedger } from "pulumi-storage-user";

interface UserEntry {
  /** Pulumi resource name, and the key in `credentials`; defaults to userName. Keep it stable. */
  name?: string;
  userName: string;
  persistPassword?: boolean;
}

const config = new pulumi.Config();
const entries = config.requireObject<UserEntry[]>("users");
const users = entries.map((u) => new StorageUser(u.name ?? u.userName, { userName: u.userName, persistPassword: u.persistPassword }));
// Ids set with `config set --path 'cleanedUp[0]' 1469` arrive as numbers.
const cleanedUp = config.getObject<(string | number)[]>("cleanedUp")?.map(String);
const ledger = new StorageUserLedger("ledger", { users, cleanedUp });

/** Safe to show: ids and endpoints. */
export const summary = Object.fromEntries(
  entries.map((e, i) => [e.name ?? e.userName, { userName: users[i].userName, userId: users[i].userId, s3Endpoint: users[i].s3Endpoint }]),
);

/** What apps need, by resource name (so a replaced user keeps its key); secret as a whole. */
export const credentials = pulumi.secret(
  Object.fromEntries(
    entries.map((e, i) => {
      const u = users[i];
      return [e.name ?? e.userName, { userName: u.userName, name: u.name, password: u.password, swift: u.swift, s3: u.s3, ftp: u.ftp, env: u.env, ftpUrl: u.ftpUrl }];
    }),
  ),
);

/** Users this stack let go of that are still (or may be) on the service: delete them there. */
export const forgotten = ledger.forgotten;
