// An ES module infra program ("type": "module", TypeScript `module: nodenext`), loaded by the
// SDK's ts-node/esm hooks.
import * as pulumi from "@pulumi/pulumi";
import { StorageUser } from "pulumi-storage-user";

const user = new StorageUser("app", { userName: new pulumi.Config().require("userName") });
export const userId = user.userId;
export const s3 = user.s3;
export const env = user.env;
export const moduleKind = typeof require === "undefined" ? "esm" : "cjs";
