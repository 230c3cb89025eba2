// The program under test: two users, and the app config it hands to the application.
import * as pulumi from "@pulumi/pulumi";
import { StorageUser } from "pulumi-storage-user";

export const app = new StorageUser("app"); // auto-named: app-<7 hex>
export const backup = new StorageUser("backup", { userName: "backup-prod" });

/** What the deployment gives the application: its S3 and FTP settings, secret as a whole. */
export const appConfig = pulumi.all([app.env, app.ftpUrl]).apply(([env, ftpUrl]) => ({
  S3_ENDPOINT: env.AWS_ENDPOINT_URL_S3,
  S3_KEY: env.AWS_ACCESS_KEY_ID,
  FTP: ftpUrl,
}));
