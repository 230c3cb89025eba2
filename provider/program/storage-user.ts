/** The StorageUser resource as programs construct it: its arguments, options and outputs. */
import * as pulumi from "@pulumi/pulumi";
import { ImportUnsupportedError, refusals } from "../errors";
import { argNames, unknownArgFailures, valueFailures } from "../inputs";
import type { Credentials, FtpConnection, S3Connection, SwiftConnection, Task } from "../wire";
import { envOf, ftpUrlOf } from "./app-config";
import { redactResponseDumps } from "./debug-redaction";
import { serializableProvider } from "./serializable";
import { assertTokensSecret } from "./stack-config";

redactResponseDumps(pulumi.log);

export interface StorageUserArgs {
  /** Requested login of the new user (request member `UserName`). Changing it creates a new user. */
  userName: pulumi.Input<string>;
  /**
   * Request member `PersistPassword`, sent as 1 or 0. The spec gives it no meaning; changing
   * it creates a new user.
   * @default false
   */
  persistPassword?: pulumi.Input<boolean>;
  /**
   * Name of an entry of the stack config object `storage:connections` (its `baseUrl` and secret
   * `accessToken`), for users on several services or accounts in one program. Omitted:
   * `storage:baseUrl` and `storage:accessToken`. A user never moves on its own: see README
   * "Lifecycle" for what changing it does.
   */
  connection?: pulumi.Input<string>;
}

/** The one output in state that holds credentials; encrypted there and masked in CLI output. */
const secretOutputs = ["credentials"];

/** "90s", "5m", "1h30m" (Pulumi's customTimeouts syntax) in ms. */
function durationMs(text: string | undefined): number | undefined {
  if (!text) return undefined;
  const re = /(\d+(?:\.\d+)?)(ms|h|m|s)/g;
  const unit: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
  let total = 0;
  let consumed = 0;
  for (const m of text.matchAll(re)) {
    total += Number(m[1]) * unit[m[2]];
    consumed += m[0].length;
  }
  if (consumed !== text.length || total <= 0) {
    throw refusals.notADuration(text);
  }
  return total;
}

/**
 * Resource options a create-only API cannot honour: refused before anything runs, with the
 * reason. The others are listed, with what they do, in README "Lifecycle".
 */
function refuseOptions(name: string, opts: pulumi.CustomResourceOptions | undefined): void {
  if (opts?.deleteBeforeReplace) throw refusals.deleteBeforeReplace(name);
  if (opts?.replaceOnChanges?.includes("*")) throw refusals.replaceOnAnyChange(name);
}

/**
 * A user of the object-storage service, created through `POST {baseUrl}/storage/users`.
 * The API can only create: see README "Lifecycle" for what replace, destroy, refresh and
 * import do.
 */
export class StorageUser extends pulumi.dynamic.Resource {
  /** The requested login, as sent. */
  public readonly userName!: pulumi.Output<string>;
  public readonly persistPassword!: pulumi.Output<boolean>;
  /** The user's Id on the service; also the resource id. */
  public readonly userId!: pulumi.Output<number>;
  /** Account state at creation time (`New`). */
  public readonly state!: pulumi.Output<string>;
  /** Id of the StorageUserCreate task. */
  public readonly creationTaskId!: pulumi.Output<number>;
  public readonly tasks!: pulumi.Output<Task[]>;
  public readonly swiftEndpoint!: pulumi.Output<string>;
  public readonly s3Endpoint!: pulumi.Output<string>;
  public readonly ftpHostName!: pulumi.Output<string>;
  /**
   * The base URL of the service the user was created on (plain). Undefined for users created
   * by 0.1.x (which did not record it) until `pulumi refresh` records it.
   */
  public readonly baseUrl!: pulumi.Output<string | undefined>;
  /** The connection name the user was last deployed with; undefined: the default one. */
  public readonly connection!: pulumi.Output<string | undefined>;
  /** Secret: everything below, as stored in state. */
  public readonly credentials!: pulumi.Output<Credentials>;
  /** Secret: the login as the service returned it. */
  public readonly name!: pulumi.Output<string>;
  /** Secret. */
  public readonly password!: pulumi.Output<string>;
  /** Secret: Swift-style API connection. */
  public readonly swift!: pulumi.Output<SwiftConnection>;
  /** Secret: S3-compatible API connection. */
  public readonly s3!: pulumi.Output<S3Connection>;
  /** Secret: FTP connection. */
  public readonly ftp!: pulumi.Output<FtpConnection>;
  /** Secret: AWS_*, OS_* and FTP_* variables for applications. */
  public readonly env!: pulumi.Output<Record<string, string>>;
  /** Secret: ftp://login:password@host/ */
  public readonly ftpUrl!: pulumi.Output<string>;

  constructor(name: string, args: StorageUserArgs, opts?: pulumi.CustomResourceOptions) {
    if (opts?.import !== undefined || opts?.id !== undefined) throw new ImportUnsupportedError(name);
    refuseOptions(name, opts);
    assertTokensSecret();
    if (args === null || typeof args !== "object") throw refusals.noArguments(name);
    // Names are checked whatever the values: only known arguments reach the provider, so a
    // misspelt one would vanish. Plain values are checked too, so a typo fails before anything
    // runs; Output values are checked by the provider's check once they resolve.
    const plain = Object.fromEntries(Object.entries(args).filter(([, v]) => !pulumi.Output.isInstance(v) && !(v instanceof Promise)));
    const unknown = unknownArgFailures(Object.keys(args), false);
    const failures = [...unknown, ...valueFailures(plain, !("userName" in args))];
    // Each value failure carries its own fix; the accepted names are said once, here.
    if (failures.length > 0) throw refusals.invalidArguments(name, failures, unknown.length > 0 ? argNames : undefined);
    const createTimeoutMs = durationMs(opts?.customTimeouts?.create);
    super(
      serializableProvider("runtime"),
      name,
      {
        userName: args.userName,
        persistPassword: args.persistPassword,
        connection: args.connection,
        // Lets the plugin attribute its preview warnings to this resource (not to the stack).
        __urn: pulumi.createUrn(name, "pulumi-nodejs:dynamic/storage:StorageUser", opts?.parent),
        ...(createTimeoutMs === undefined ? {} : { __createTimeoutMs: createTimeoutMs }),
        userId: undefined,
        state: undefined,
        creationTaskId: undefined,
        tasks: undefined,
        swiftEndpoint: undefined,
        s3Endpoint: undefined,
        ftpHostName: undefined,
        baseUrl: undefined,
        credentials: undefined,
      },
      pulumi.mergeOptions(opts, { additionalSecretOutputs: secretOutputs }),
      "storage",
      "StorageUser",
    );
    // Derived here, not stored: secret because `credentials` is.
    const c = this.credentials;
    this.name = c.apply((x) => x.name);
    this.password = c.apply((x) => x.password);
    this.swift = c.apply((x) => x.swift);
    this.s3 = c.apply((x) => x.s3);
    this.ftp = c.apply((x) => x.ftp);
    this.env = c.apply(envOf);
    this.ftpUrl = c.apply((x) => ftpUrlOf(x.ftp));
  }

  /** Not supported: the API cannot return an existing user's credentials. Always throws. */
  static get(name: string, _id: pulumi.Input<pulumi.ID>, _opts?: pulumi.CustomResourceOptions): never {
    throw new ImportUnsupportedError(name);
  }
}
