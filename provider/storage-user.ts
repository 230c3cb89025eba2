// The StorageUser resource as programs construct it: its arguments, options and outputs.
import * as pulumi from "@pulumi/pulumi";
import { StorageUserError } from "./messages";
import {
  argNames,
  inputFailures,
  PREVIEW_MARK,
  refuseUnsupportedOptions,
  rotationRefusal,
  withDefaults,
} from "./arguments";
import { outputNames, OutputValues } from "./model";
import { derive, secretOutputs, Stored } from "./derive";
import { assertConfig, programStacks, perRun, urnOf } from "./program";
import { redactResponseDumps } from "./core/sdk-seam";
import { serializableProvider } from "./serializable";

redactResponseDumps(pulumi.log);

/** The arguments of a {@link StorageUser}; every one is optional (`new StorageUser("app")`). */
export interface StorageUserArgs {
  /** Requested login of the new user (request member `UserName`). Changing it creates a new user. Left out, a name is generated on create: the resource name, "-", 7 random hex digits, kept on every update and new on every replace, which is how to rotate credentials.
   * @default `${name}-${7 random hex digits}` */
  userName?: pulumi.Input<string>;
  /** Request member `PersistPassword`, sent as 1 or 0. The spec gives it no meaning; changing it creates a new user.
   * @default false */
  persistPassword?: pulumi.Input<boolean>;
  /** Name of a connection, for users on several services in one program: the address and token it names are read from STORAGE_API_URL_<NAME> and STORAGE_ACCESS_TOKEN_<NAME> in the environment (TypeScript programs can set them in stack config too). Omitted: the provider's own settings. A user never moves on its own.
   * @default the default connection: storage:baseUrl and storage:accessToken */
  connection?: pulumi.Input<string>;
  /** Rotate the credentials on a schedule: once the user is this old, the next preview shows it replaced and the next up creates a new user with a new generated name and new credentials, the old one leaving the stack as on any replace. Whole numbers with units w, d, h, m (minutes): "90d", "12h", "1d12h". The age counts from the create (users created before 0.7.0: from the first up with rotateAfter). Not with a given userName.
   * @default no scheduled rotation */
  rotateAfter?: pulumi.Input<string>;
}

/** "90s", "5m", "1h30m" (Pulumi's customTimeouts syntax) in ms. */
function durationMs(text: string | undefined): number | undefined {
  if (!text) return undefined;
  const unit: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
  const parts = [...text.matchAll(/(\d+(?:\.\d+)?)(ms|h|m|s)/g)];
  const total = parts.reduce((sum, m) => sum + Number(m[1]) * unit[m[2]], 0);
  if (parts.map((m) => m[0]).join("") !== text || total <= 0)
    throw new StorageUserError("INVALID_INPUT", { problem: "notADuration", text });
  return total;
}

// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging, @typescript-eslint/no-empty-object-type -- the outputs are declared once, in the description
export interface StorageUser extends Outputs {}
type Outputs = { readonly [K in keyof OutputValues]: pulumi.Output<OutputValues[K]> };

/** A user of the object-storage service, created through `POST {baseUrl}/storage/users`; the API can only create (docs/lifecycle.md). */
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging -- see the interface above
export class StorageUser extends pulumi.dynamic.Resource {
  /** The requested login, as sent: the given userName, or the generated one. */
  public readonly userName!: pulumi.Output<string>;
  /** The `persistPassword` input, as sent (`false` unless given). */
  public readonly persistPassword!: pulumi.Output<boolean>;
  /** The connection name the user was last deployed with; undefined: the default one. */
  public readonly connection!: pulumi.Output<string | undefined>;
  /** The `rotateAfter` input: the period after which an up rotates the user; undefined: none. */
  public readonly rotateAfter!: pulumi.Output<string | undefined>;
  private readonly account!: pulumi.Output<string>;
  private readonly secrets!: pulumi.Output<string>;

  constructor(name: string, args: StorageUserArgs = {}, opts?: pulumi.CustomResourceOptions) {
    if (opts?.import !== undefined || opts?.id !== undefined)
      throw new StorageUserError("IMPORT_UNSUPPORTED", { name });
    refuseUnsupportedOptions(name, opts);
    assertConfig();
    if (args === null || typeof args !== "object")
      throw new StorageUserError("INVALID_INPUT", { problem: "noArguments", name });
    // Names and plain values now (an unknown argument would vanish); Output values in the plugin's check.
    const known = (v: unknown) => (pulumi.Output.isInstance(v) || v instanceof Promise ? undefined : v);
    const failures = inputFailures(Object.fromEntries(Object.entries(args).map(([k, v]) => [k, known(v)])), false);
    const unknownName = failures.some((f) => !(argNames as string[]).includes(f.property));
    if (failures.length > 0)
      throw new StorageUserError("INVALID_INPUT", {
        problem: "invalidArguments",
        name,
        failures,
        accepted: unknownName ? argNames : undefined,
      });
    const refusal = rotationRefusal(known(args.rotateAfter), known(args.userName), name);
    if (refusal) throw new StorageUserError(...refusal);
    const createTimeoutMs = durationMs(opts?.customTimeouts?.create);
    programStacks();
    const secret = secretOutputs(opts?.additionalSecretOutputs);
    // Each key costs the SDK an Output and the engine a property per resource: only what the plugin or state needs.
    super(
      serializableProvider("runtime"),
      name,
      {
        userName: args.userName,
        ...Object.fromEntries(Object.entries(args).filter(([, v]) => v !== undefined)),
        __urn: urnOf(name, "user", opts?.parent),
        // A generated name is made at up, not at preview (inputs.ts nameInputs).
        ...(pulumi.runtime.isDryRun() ? { [PREVIEW_MARK]: true } : {}),
        ...(createTimeoutMs === undefined ? {} : { __createTimeoutMs: createTimeoutMs }),
        account: undefined,
        secrets: undefined,
      },
      { ...opts, additionalSecretOutputs: secret.state },
      "storage",
      "StorageUser",
    );
    // Shared by every user of the run that leaves them out: the provider's check fills in the same values.
    if (args.persistPassword === undefined) this.persistPassword = byDefault().persistPassword;
    if (args.connection === undefined) this.connection = byDefault().none;
    if (args.rotateAfter === undefined) this.rotateAfter = byDefault().none;
    // Each output is made from state when first read, and kept.
    for (const output of outputNames)
      Object.defineProperty(this, output, {
        configurable: true,
        get: () => {
          const value = derive(this as unknown as Stored, output, secret.derived.has(output));
          Object.defineProperty(this, output, { value, enumerable: true });
          return value;
        },
      });
  }

  /** Not supported: the API cannot return an existing user's credentials. Always throws. */
  static get(name: string, _id: pulumi.Input<pulumi.ID>, _opts?: pulumi.CustomResourceOptions): never {
    throw new StorageUserError("IMPORT_UNSUPPORTED", { name });
  }
}

// Per run: an Output belongs to the run that made it.
const byDefault = perRun(() => ({
  persistPassword: pulumi.output(withDefaults({}).persistPassword),
  none: pulumi.output(undefined),
}));
