/**
 * Tenant provisioning through Pulumi's Automation API: one stack per tenant, each holding the
 * tenant's StorageUser, driven from one Node.js process (a platform service). Run as a script:
 *
 *   node dist/tenants.js up <tenant>            create or update the tenant's stack
 *   node dist/tenants.js credentials <tenant>   the tenant's credentials (secret outputs, masked)
 *   node dist/tenants.js remove <tenant>        destroy the stack and remove it
 *
 * or import provisionTenant / tenantCredentials / removeTenant into a service. The storage
 * API's address and token come from STORAGE_API_URL and STORAGE_ACCESS_TOKEN; the Pulumi
 * backend and passphrase from the usual PULUMI_BACKEND_URL and PULUMI_CONFIG_PASSPHRASE.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { ConfigMap, EngineEvent, LocalWorkspace, Stack } from "@pulumi/pulumi/automation";
import { StorageUser } from "pulumi-storage-user";
import {
  checkStorageConfig,
  setStorageConfig,
  storageUserDiagnostics,
  StorageUserFailure,
  storageUserFailures,
  StorageUserWarning,
} from "pulumi-storage-user/automation";

const projectName = "tenants";

/**
 * The directory whose node_modules hold @pulumi/pulumi and pulumi-storage-user (this
 * package's root; the compiled file is in dist/). Pulumi starts the dynamic-provider plugin in
 * the project's `main` directory and loads both from there; an inline program's default `main`
 * is the process's working directory, which for a service is often `/`.
 */
const appDir = path.resolve(__dirname, "..");

export interface StorageService {
  baseUrl: string;
  accessToken: string;
}

/** A tenant operation the storage provider refused: its failures, typed (code, URN, userName). */
export class TenantError extends Error {
  constructor(
    readonly tenant: string,
    readonly failures: StorageUserFailure[],
    cause: unknown,
  ) {
    super(
      `tenant ${tenant}: ${failures.map((f) => f.message).join("; ") || (cause instanceof Error ? cause.message : String(cause))}`,
      { cause },
    );
  }
}

function program(tenant: string) {
  return async () => {
    const user = new StorageUser("storage", { userName: `tenant-${tenant}` });
    return { userId: user.userId, userName: user.userName, env: user.env, s3: user.s3, ftpUrl: user.ftpUrl };
  };
}

/**
 * Runs `work` on the tenant's stack in a workspace of its own, then removes that workspace: an
 * inline program's LocalWorkspace lives in a new temp directory, and its `Pulumi.<stack>.yaml`
 * holds the stack's config. The stack itself (state, history) is in the backend; the config is
 * set again on every `up` from the service's own settings.
 */
async function withTenantStack<T>(tenant: string, work: (stack: Stack) => Promise<T>): Promise<T> {
  const stack = await LocalWorkspace.createOrSelectStack(
    { stackName: tenant, projectName, program: program(tenant) },
    { projectSettings: { name: projectName, runtime: "nodejs", main: appDir } },
  );
  try {
    return await work(stack);
  } finally {
    fs.rmSync(stack.workspace.workDir, { recursive: true, force: true });
  }
}

/** Creates or updates the tenant's stack: its storage user exists once this resolves. */
export async function provisionTenant(
  tenant: string,
  service: StorageService,
): Promise<{ userId: number; warnings: StorageUserWarning[] }> {
  const config: ConfigMap = {
    "storage:baseUrl": { value: service.baseUrl },
    "storage:accessToken": { value: service.accessToken, secret: true },
  };
  // Before anything is written: a plain token or a misspelt key never reaches the workspace's
  // files or the backend's update history.
  checkStorageConfig(config);
  return withTenantStack(tenant, async (stack) => {
    // The token reaches the CLI on standard input: setAllConfig would put it on its command line.
    await setStorageConfig(stack, config);
    const events: EngineEvent[] = [];
    try {
      const result = await stack.up({ onEvent: (e) => events.push(e) });
      return { userId: result.outputs.userId.value, warnings: storageUserDiagnostics(events).warnings };
    } catch (err) {
      throw new TenantError(tenant, storageUserFailures(events), err);
    }
  });
}

/** The tenant's credentials as the stack holds them: every value secret. */
export async function tenantCredentials(tenant: string): Promise<{ env: Record<string, string>; secret: boolean }> {
  const outputs = await withTenantStack(tenant, (stack) => stack.outputs());
  return { env: outputs.env.value, secret: outputs.env.secret === true };
}

/**
 * Destroys the tenant's stack and removes it. The storage API has no delete call, so the user
 * stays on the service: the returned warnings (USER_LEFT_STACK) name it, with its URN.
 */
export async function removeTenant(tenant: string): Promise<StorageUserWarning[]> {
  return withTenantStack(tenant, async (stack) => {
    const events: EngineEvent[] = [];
    try {
      await stack.destroy({ onEvent: (e) => events.push(e) });
    } catch (err) {
      throw new TenantError(tenant, storageUserFailures(events), err);
    }
    await stack.workspace.removeStack(tenant);
    return storageUserDiagnostics(events).warnings;
  });
}

async function main(): Promise<void> {
  const [command, tenant] = process.argv.slice(2);
  if (!tenant || !["up", "credentials", "remove"].includes(command)) {
    console.error("usage: node dist/tenants.js up|credentials|remove <tenant>");
    process.exitCode = 2;
    return;
  }
  try {
    if (command === "up") {
      const service = {
        baseUrl: process.env.STORAGE_API_URL ?? "",
        accessToken: process.env.STORAGE_ACCESS_TOKEN ?? "",
      };
      const { userId, warnings } = await provisionTenant(tenant, service);
      console.log(`tenant ${tenant}: storage user ${userId}`);
      for (const w of warnings) console.log(`warning ${w.code} (${w.urn}): ${w.message}`);
    } else if (command === "credentials") {
      const { env, secret } = await tenantCredentials(tenant);
      for (const name of Object.keys(env).sort()) console.log(`${name}=${secret ? "[secret]" : env[name]}`);
    } else {
      for (const w of await removeTenant(tenant)) console.log(`warning ${w.code} (${w.urn}): ${w.message}`);
      console.log(`tenant ${tenant}: stack removed`);
    }
  } catch (err) {
    if (!(err instanceof TenantError)) throw err;
    for (const f of err.failures)
      console.error(
        `${f.code} (${f.resourceName ?? "stack"}${f.userName ? `, userName ${f.userName}` : ""}): ${f.message}`,
      );
    if (err.failures.length === 0) console.error(err.message);
    process.exitCode = 1;
  }
}

if (require.main === module) void main();
