// Peer (b): what a user writes with @pulumi/command instead of a provider: one local.Command
// per user running curl for the same POST; the answer (the credentials) is the command's stdout.
// The token reaches curl through the environment, as a secret input.
import * as pulumi from "@pulumi/pulumi";
import * as command from "@pulumi/command";

const config = new pulumi.Config();
const count = config.requireNumber("count");
const prefix = config.require("prefix");
const baseUrl = config.require("baseUrl");
const accessToken = config.requireSecret("accessToken");

for (let i = 0; i < count; i++) {
  const body = JSON.stringify({ UserName: `${prefix}-${i}`, PersistPassword: 0 });
  new command.local.Command(`u${i}`, {
    create: `curl -sS --fail-with-body -X POST "$STORAGE_API_URL/storage/users" -H 'content-type: application/json' -H "authorization: $STORAGE_ACCESS_TOKEN" -d '${body}'`,
    environment: { STORAGE_API_URL: baseUrl, STORAGE_ACCESS_TOKEN: accessToken },
  });
}
