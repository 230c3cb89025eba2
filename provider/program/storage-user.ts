/** The StorageUser resource as programs construct it: its arguments, options and outputs. */
import * as pulumi from "@pulumi/pulumi";
import { defaults } from "../defaults";
import { StorageUserError } from "../errors";
import { argNames, PREVIEW_MARK, unknownArgFailures, valueFailures } from "../inputs";
import { Credentials, FtpConnection, S3Connection, SwiftConnection, Task } from "../wire";
import { deriveOutput, OutputName, outputNames, outputs, sourcesOf } from "../description";
import { redactResponseDumps } from "./debug-redaction";
import { serializableProvider } from "./serializable";
import { perRun } from "./run-scope";
import { urnOf } from "./urn";
import { assertPluginCanStart } from "./plugin-dir";
import { assertTokensSecret } from "./stack-config";

redactResponseDumps(pulumi.log);

/** The arguments of a {@link StorageUser}; every one is optional (`new StorageUser("app")`). */
export interface StorageUserArgs {
  /**
   * Requested login of the new user (request member `UserName`). Changing it creates a new user.
   * Left out, a name is generated on create: the resource name, "-", 7 random hex digits, kept on
   * every update and new on every replace, which is how to rotate credentials (docs/lifecycle.md
   * "Rotation").
   * @default `${name}-${7 random hex digits}`
   */
  userName?: pulumi.Input<string>;
  /**
   * Request member `PersistPassword`, sent as 1 or 0. The spec gives it no meaning; changing it
   * creates a new user.
   * @default false
   */
  persistPassword?: pulumi.Input<boolean>;
  /**
   * Name of a connection, for users on several services or accounts in one program: in TypeScript
   * an entry of the stack config object `storage:connections`, in the plugin the environment
   * variables STORAGE_API_URL_<NAME> and STORAGE_ACCESS_TOKEN_<NAME>. Omitted: the default
   * connection. A user never moves on its own (docs/lifecycle.md "Where a user lives").
   */
  connection?: pulumi.Input<string>;
}

/** The one output in state that holds credentials; encrypted there and masked in CLI output. */
const secretOutputs = ["secrets"];

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
    throw new StorageUserError("INVALID_INPUT", { problem: "notADuration", text });
  }
  return total;
}

/**
 * Resource options a create-only API cannot honour: refused before anything runs, with the
 * reason. The others are listed, with what they do, in docs/lifecycle.md "Resource options".
 */
function refuseOptions(name: string, opts: pulumi.CustomResourceOptions | undefined): void {
  if (opts?.deleteBeforeReplace)
    throw new StorageUserError("INVALID_INPUT", { problem: "unsupportedOption", name, option: "deleteBeforeReplace" });
  if (opts?.replaceOnChanges?.includes("*"))
    throw new StorageUserError("INVALID_INPUT", {
      problem: "unsupportedOption",
      name,
      option: 'replaceOnChanges: ["*"]',
    });
}

/**
 * A user of the object-storage service, created through `POST {baseUrl}/storage/users`.
 * The API can only create: see docs/lifecycle.md for what replace, destroy, refresh and
 * import do.
 */
export class StorageUser extends pulumi.dynamic.Resource {
  /** The requested login, as sent: the given userName, or the generated one. */
  public readonly userName!: pulumi.Output<string>;
  /** The `persistPassword` input, as sent (`false` unless given). */
  public readonly persistPassword!: pulumi.Output<boolean>;
  /** The connection name the user was last deployed with; undefined: the default one. */
  public readonly connection!: pulumi.Output<string | undefined>;
  /** The user's Id on the service; also the resource id. */
  declare readonly userId: pulumi.Output<number>;
  /** Account state at creation time (`New`). */
  declare readonly state: pulumi.Output<string>;
  /** Id of the StorageUserCreate task. */
  declare readonly creationTaskId: pulumi.Output<number>;
  /** The service's `Tasks` at creation (an array, or a single object, both accepted). */
  declare readonly tasks: pulumi.Output<Task[]>;
  /** Plain: the Swift endpoint, for configuration that must not be secret. */
  declare readonly swiftEndpoint: pulumi.Output<string>;
  /** Plain: the S3 endpoint, for configuration that must not be secret. */
  declare readonly s3Endpoint: pulumi.Output<string>;
  /** Plain: the FTP host name, for configuration that must not be secret. */
  declare readonly ftpHostName: pulumi.Output<string>;
  /**
   * The base URL of the service the user was created on (plain). Undefined for users created by
   * 0.1.x (which did not record it) until `pulumi refresh` records it.
   */
  declare readonly baseUrl: pulumi.Output<string | undefined>;
  /** Secret: name, password and the three connections below, endpoints included. */
  declare readonly credentials: pulumi.Output<Credentials>;
  /** Secret: the login as the service returned it. */
  declare readonly name: pulumi.Output<string>;
  /** Secret: the user's password. */
  declare readonly password: pulumi.Output<string>;
  /** Secret: Swift-style API connection. */
  declare readonly swift: pulumi.Output<SwiftConnection>;
  /** Secret: S3-compatible API connection. */
  declare readonly s3: pulumi.Output<S3Connection>;
  /** Secret: FTP connection. */
  declare readonly ftp: pulumi.Output<FtpConnection>;
  /** Secret: AWS_*, OS_* and FTP_* variables for applications. */
  declare readonly env: pulumi.Output<Record<string, string>>;
  /** Secret: ftp://login:password@host/ (percent-encoded). */
  declare readonly ftpUrl: pulumi.Output<string>;
  /** As stored in state: JSON text of an Account (plain); the outputs above are derived from it. */
  private readonly account!: pulumi.Output<string>;
  /** As stored in state: JSON text of the Secrets (secret). */
  private readonly secrets!: pulumi.Output<string>;

  constructor(name: string, args: StorageUserArgs = {}, opts?: pulumi.CustomResourceOptions) {
    if (opts?.import !== undefined || opts?.id !== undefined)
      throw new StorageUserError("IMPORT_UNSUPPORTED", { name });
    refuseOptions(name, opts);
    assertTokensSecret();
    assertPluginCanStart();
    if (args === null || typeof args !== "object")
      throw new StorageUserError("INVALID_INPUT", { problem: "noArguments", name });
    // Names are checked whatever the values: only known arguments reach the provider, so a
    // misspelt one would vanish. Plain values are checked too, so a typo fails before anything
    // runs; Output values are checked by the provider's check once they resolve.
    const plain = Object.fromEntries(
      Object.entries(args).filter(([, v]) => !pulumi.Output.isInstance(v) && !(v instanceof Promise)),
    );
    const unknown = unknownArgFailures(Object.keys(args), false);
    const failures = [...unknown, ...valueFailures(plain)];
    // Each value failure carries its own fix; the accepted names are said once, here.
    if (failures.length > 0)
      throw new StorageUserError("INVALID_INPUT", {
        problem: "invalidArguments",
        name,
        failures,
        accepted: unknown.length > 0 ? argNames : undefined,
      });
    const createTimeoutMs = durationMs(opts?.customTimeouts?.create);
    // Every key here costs the SDK an Output and the engine a property per resource (the
    // profile in bench/README.md), so only what must reach the plugin or state is one; the rest
    // of the outputs are derived, when first read.
    super(
      serializableProvider("runtime"),
      name,
      {
        userName: args.userName,
        // Left out when not given: the SDK would not send an undefined value anyway.
        ...(args.persistPassword === undefined ? {} : { persistPassword: args.persistPassword }),
        ...(args.connection === undefined ? {} : { connection: args.connection }),
        // Lets the plugin attribute its preview warnings to this resource (not to the stack).
        __urn: urnOf(name, "StorageUser", opts?.parent),
        // A generated name is made at up, not at preview: see userNameOf.
        ...(pulumi.runtime.isDryRun() ? { [PREVIEW_MARK]: true } : {}),
        ...(createTimeoutMs === undefined ? {} : { __createTimeoutMs: createTimeoutMs }),
        account: undefined,
        secrets: undefined,
      },
      pulumi.mergeOptions(opts, { additionalSecretOutputs: secretOutputs }),
      "storage",
      "StorageUser",
    );
    // Shared by every user of the run that leaves them out: the provider's check fills in the same values.
    if (args.persistPassword === undefined) this.persistPassword = byDefault().persistPassword;
    if (args.connection === undefined) this.connection = byDefault().connection;
  }

  /** Not supported: the API cannot return an existing user's credentials. Always throws. */
  static get(name: string, _id: pulumi.Input<pulumi.ID>, _opts?: pulumi.CustomResourceOptions): never {
    throw new StorageUserError("IMPORT_UNSUPPORTED", { name });
  }
}

/** Per run (run-scope.ts): an Output belongs to the run that made it. */
const byDefault = perRun(() => ({
  persistPassword: pulumi.output(defaults.persistPassword),
  connection: pulumi.output(undefined),
}));

type Self = { account: pulumi.Output<unknown>; secrets: pulumi.Output<unknown>; id: pulumi.Output<string> };

/**
 * Each output of the description, derived when first read from the source it names. Those made
 * from the credentials are secret in the program itself, not only because the engine marks
 * `secrets` (which it does not do under `pulumi.runtime.setMocks`), so a user's unit test can
 * assert it.
 */
function derive(u: Self, name: OutputName): pulumi.Output<unknown> {
  const { from } = outputs[name];
  if (from === "id") return u.id.apply((id) => deriveOutput(name, { id }));
  if (from === "account") return u.account.apply((account) => deriveOutput(name, sourcesOf({ account })));
  return pulumi.secret(
    pulumi
      .all([u.account, u.secrets])
      .apply(([account, secrets]) => deriveOutput(name, sourcesOf({ account, secrets }))),
  );
}
for (const name of outputNames) {
  Object.defineProperty(StorageUser.prototype, name, {
    configurable: true,
    get(this: Self) {
      const value = derive(this, name);
      Object.defineProperty(this, name, { value, enumerable: true });
      return value;
    },
  });
}
