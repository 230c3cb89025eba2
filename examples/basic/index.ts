// One storage user. Everything that is a credential comes out as a secret output: masked by
// `pulumi stack output`, shown by `pulumi stack output --show-secrets`, encrypted in state.
import * as pulumi from "@pulumi/pulumi";
import { StorageUser } from "pulumi-storage-user";

const config = new pulumi.Config();
// Changing userName later creates a new user (the service has no rename): see README.
const user = new StorageUser("app", { userName: config.get("userName") ?? `app-${pulumi.getStack()}` });

export const userId = user.userId;
export const userName = user.userName;
export const s3Endpoint = user.s3Endpoint;
export const swiftEndpoint = user.swiftEndpoint;
export const ftpHostName = user.ftpHostName;

// Secrets.
export const password = user.password;
export const s3 = user.s3;
export const swift = user.swift;
export const ftp = user.ftp;
export const env = user.env;
export const ftpUrl = user.ftpUrl;
