import * as pulumi from "@pulumi/pulumi";
import { StorageUser } from "pulumi-storage-user";

const how = new pulumi.Config().require("how");
if (how === "import") new StorageUser("adopted", { userName: "existing" }, { import: "1001" });
else StorageUser.get("adopted", "1001");
