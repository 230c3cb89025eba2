/**
 * What the plugin hands the engine: the state TypeScript programs record (`account`, `secrets`)
 * plus every output of the description (../description.ts), derived here as the TypeScript class
 * derives it in the program. A custom resource's provider marks its own secrets.
 */
import { deriveOutput, isSecretOutput, outputNames, sourcesOf } from "../description";

// The engine's wire form of a secret (sdk/go/common/resource/sig: Secret).
const SIG = "4dabf18193072939515e22adb298388d";
const SECRET = "1b47061264138c4ac30d75fd1eb44270";

type Props = Record<string, unknown>;
const isSecret = (v: unknown): v is { value: unknown } =>
  typeof v === "object" && v !== null && (v as Props)[SIG] === SECRET;
const secret = (value: unknown) => ({ [SIG]: SECRET, value });

/** Plain values for the lifecycle code: secrets unwrapped, derived outputs dropped (state keeps `account` and `secrets`). */
export function fromEngine(props: unknown): Props {
  const out: Props = {};
  for (const [k, v] of Object.entries((props ?? {}) as Props)) {
    if (derived.has(k)) continue;
    out[k] = isSecret(v) ? v.value : v;
  }
  return out;
}

const derived = new Set<string>(outputNames);
/** `secrets` is recorded state; the rest are the description's secret outputs. */
export const secretKeys = new Set(["secrets", ...outputNames.filter(isSecretOutput)]);

/** The recorded outputs plus the derived ones, absent while state holds no account (a recorded failure). */
export function outputsOf(outs: Props, id?: string): Props {
  const sources = sourcesOf({ id, account: outs.account, secrets: outs.secrets });
  return { ...outs, ...Object.fromEntries(outputNames.map((name) => [name, deriveOutput(name, sources)])) };
}

/** Secret-bearing values wrapped for the engine; undefined dropped (a Struct cannot hold it). */
export function toEngine(props: Props): Props {
  const out: Props = {};
  for (const [k, v] of Object.entries(props)) {
    if (v === undefined) continue;
    out[k] = secretKeys.has(k) ? secret(v) : v;
  }
  return out;
}
