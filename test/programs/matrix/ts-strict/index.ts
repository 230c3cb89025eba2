// A TypeScript infra program under `strict`, type-checked by the language host.
import * as pulumi from "@pulumi/pulumi";
import { StorageUser, StorageUserArgs } from "pulumi-storage-user";

const args: StorageUserArgs = { userName: new pulumi.Config().require("userName"), persistPassword: false };
const user = new StorageUser("app", args);
const accessKey: pulumi.Output<string> = user.s3.accessKey;
export const userId: pulumi.Output<number> = user.userId;
export const s3 = user.s3;
export const env = user.env;
export const keyLength = accessKey.apply((k) => k.length);
