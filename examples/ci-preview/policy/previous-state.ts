// The StorageUsers of the stack's last deployment. Policies see only the resources of the new
// program, so a user that leaves the stack is found by comparing with the state the backend
// holds, read with the same `pulumi` and the same backend settings as the preview running us.
import { execFile } from "node:child_process";
import * as pulumi from "@pulumi/pulumi";

export const storageUserType = "pulumi-nodejs:dynamic/storage:StorageUser";

export interface RecordedUser {
  urn: string;
  id: string;
  userName: string;
  persistPassword: boolean;
  /** The recorded account (plain JSON): an unchanged user carries it into the preview too. */
  account: unknown;
}

/** A resource of `pulumi stack export`'s deployment, as far as read here. */
interface ExportedResource {
  urn: string;
  id: string;
  type: string;
  delete?: boolean;
  inputs?: Record<string, unknown>;
  outputs?: Record<string, unknown>;
}

/** `pulumi stack export` of this stack by its full name, so no project directory is needed. */
export function previousStorageUsers(): Promise<RecordedUser[]> {
  const stack = `${pulumi.getOrganization()}/${pulumi.getProject()}/${pulumi.getStack()}`;
  return new Promise((resolve, reject) =>
    execFile(
      "pulumi",
      ["stack", "export", "--stack", stack],
      { maxBuffer: 256 * 1024 * 1024 },
      (err, stdout, stderr) => {
        if (err)
          return reject(new Error(`pulumi stack export --stack ${stack} failed: ${(stderr || err.message).trim()}`));
        const resources =
          (JSON.parse(stdout) as { deployment?: { resources?: ExportedResource[] } }).deployment?.resources ?? [];
        resolve(
          resources
            .filter((r) => r.type === storageUserType && !r.delete)
            .map((r) => ({
              urn: r.urn,
              id: r.id,
              userName: (r.outputs?.userName ?? r.inputs?.userName) as string,
              persistPassword: Boolean(r.outputs?.persistPassword ?? r.inputs?.persistPassword),
              account: r.outputs?.account,
            })),
        );
      },
    ),
  );
}
