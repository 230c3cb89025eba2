// The program a pull request changes: users from the stack config list `users`. CI previews
// it without the storage API token (see .github/workflows/preview.yml): preview only checks
// inputs and compares them with state, which never needs the API.
import * as pulumi from "@pulumi/pulumi";
import { StorageUser } from "pulumi-storage-user";

const entries = new pulumi.Config().requireObject<{ name?: string; userName: string }[]>("users");
const users = entries.map((u) => new StorageUser(u.name ?? u.userName, { userName: u.userName }));

export const userIds = users.map((u) => u.userId);
