// A second stack that turns the credentials exported by a storage-users stack (../from-config)
// into the config file an application reads. The credentials stay secrets all the way: in
// this stack's state and outputs they are encrypted or absent; only the written file holds
// them in plain text, with mode 0600.
import * as path from "node:path";
import * as pulumi from "@pulumi/pulumi";
import { redactResponseDumps } from "pulumi-storage-user";
import { Format, formats, render, writePrivateFile } from "./render";

// @pulumi/pulumi logs what a StackReference reads at debug level, secret values in plain text:
// without this line `pulumi up --debug` of this stack prints every credential it reads. It cuts
// those dumps from the debug output (importing pulumi-storage-user for a StorageUser does the same).
redactResponseDumps(pulumi.log);

const config = new pulumi.Config();
/** The stack that owns the users, e.g. organization/from-config/dev (file backend) or acme/from-config/prod. */
const usersStack = config.require("usersStack");
/** Key in that stack's `credentials` output: the StorageUser's resource name. */
const user = config.require("user");
/** Where to write the config; relative paths are relative to this project. */
const file = path.resolve(config.require("file"));
const format = (config.get("format") ?? "dotenv") as Format;
if (!formats.includes(format))
  throw new Error(`app-config:format must be one of ${formats.join(", ")}, got ${JSON.stringify(format)}`);
const secretName = config.get("secretName") ?? `${user}-storage`;

const users = new pulumi.StackReference(usersStack);

// requireOutput of a secret output is a secret Output, and so is everything derived from it.
const env = users.requireOutput("credentials").apply((all: Record<string, { env?: Record<string, string> }>) => {
  const found = all?.[user]?.env;
  if (!found)
    throw new Error(
      `${usersStack} exports no credentials for '${user}'; it has: ${Object.keys(all ?? {}).join(", ") || "none"}`,
    );
  return found;
});

const written = env.apply((vars) => {
  const text = render(format, vars, secretName);
  // Preview shows what would change; only `up` touches the file.
  if (!pulumi.runtime.isDryRun()) writePrivateFile(file, text);
  return file;
});

/** Where the config went. The path is not a secret, though it is derived from one. */
export const configFile = pulumi.unsecret(written);
export const configFormat = format;
