import { StorageUser } from "pulumi-storage-user";

new StorageUser("app", { userName: "project-token" });
