// The main job: one StorageUser per entry of the stack config list `users`.
//   pulumi config set --path 'users[0].name' app
//   pulumi config set --path 'users[0].userName' app-prod
//   pulumi config set --path 'users[0].persistPassword' true   # optional
import * as pulumi from "@pulumi/pulumi";
import { StorageUser } from "pulumi-storage-user";

interface UserEntry {
  /** Pulumi resource name; defaults to userName. */
  name?: string;
  userName: string;
  persistPassword?: boolean;
}

const entries = new pulumi.Config().requireObject<UserEntry[]>("users");
const users = entries.map((u) => new StorageUser(u.name ?? u.userName, { userName: u.userName, persistPassword: u.persistPassword }));

/** What is safe to show: ids, states, endpoints. */
export const summary = users.map((u) => ({
  userName: u.userName,
  userId: u.userId,
  state: u.state,
  creationTaskId: u.creationTaskId,
  swiftEndpoint: u.swiftEndpoint,
  s3Endpoint: u.s3Endpoint,
  ftpHostName: u.ftpHostName,
}));

/** Everything an app needs, keyed by userName; secret as a whole. */
export const credentials = pulumi.secret(
  pulumi.all(users.map((u) => pulumi.all([u.userName, u.name, u.password, u.swift, u.s3, u.ftp, u.env]))).apply((rows) =>
    Object.fromEntries(rows.map(([userName, name, password, swift, s3, ftp, env]) => [userName, { name, password, swift, s3, ftp, env }])),
  ),
);
