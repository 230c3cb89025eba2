// One StorageUser per entry of the stack config list `users`, plus the ledger of users the
// stack has let go of (the service has no delete call, so they stay there until you act).
import * as pulumi from "@pulumi/pulumi";
import { StorageUser, StorageUserLedger } from "pulumi-storage-user";

interface UserEntry {
  /** Pulumi resource name, and the key in `credentials`; defaults to userName. Keep it stable. */
  name?: string;
  /** Left out: generated from `name` (new on every replace, so a rotation works on services with unique names). */
  userName?: string;
  persistPassword?: boolean;
  /**
   * Change it (any new text, e.g. a date) to rotate this user's credentials: the engine replaces
   * the user (its `replacementTrigger`), and with no userName the new one gets a new name, so a
   * service with unique names accepts it. The old user stays on the service, in the ledger.
   */
  rotate?: string;
  /** Rotate on a schedule instead, e.g. "90d": replaced at the first up once the user is that old (no userName). */
  rotateAfter?: string;
}

const config = new pulumi.Config();
const entries = config.requireObject<UserEntry[]>("users");
const nameOf = (e: UserEntry, i: number) => {
  const name = e.name ?? e.userName;
  if (!name)
    throw new Error(
      `from-config:users[${i}] needs a name (or a userName): pulumi config set --path 'users[${i}].name' app`,
    );
  return name;
};
const users = entries.map(
  (u, i) =>
    new StorageUser(
      nameOf(u, i),
      { userName: u.userName, persistPassword: u.persistPassword, rotateAfter: u.rotateAfter },
      { replacementTrigger: u.rotate },
    ),
);
// Ids set with `config set --path 'cleanedUp[0]' 1469` arrive as numbers.
const cleanedUp = config.getObject<(string | number)[]>("cleanedUp")?.map(String);
const ledger = new StorageUserLedger("ledger", { users, cleanedUp });

/** Safe to show: ids and endpoints. */
export const summary = Object.fromEntries(
  entries.map((e, i) => [
    nameOf(e, i),
    { userName: users[i].userName, userId: users[i].userId, s3Endpoint: users[i].s3Endpoint },
  ]),
);

/** What apps need, by resource name (so a replaced user keeps its key); secret as a whole. */
export const credentials = pulumi.secret(
  Object.fromEntries(
    entries.map((e, i) => {
      const u = users[i];
      return [
        nameOf(e, i),
        {
          userName: u.userName,
          name: u.name,
          password: u.password,
          swift: u.swift,
          s3: u.s3,
          ftp: u.ftp,
          env: u.env,
          ftpUrl: u.ftpUrl,
        },
      ];
    }),
  ),
);

/** Users this stack let go of that are still (or may be) on the service: delete them there. */
export const forgotten = ledger.forgotten;
