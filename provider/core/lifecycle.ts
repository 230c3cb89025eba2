// StorageUser's lifecycle over one provider's settings, served by the dynamic provider (runtime.ts)
// and the package's plugin (server.ts). The API can only create: see docs/lifecycle.md.
import type * as dynamic from "@pulumi/pulumi/dynamic";
import { defaults } from "../defaults";
import { ErrorArgs, errorText, StorageUserError } from "../messages";
import { declaredNewAddress, Settings } from "../config";
import {
  inputFailures,
  nameInputs,
  periodText,
  PREVIEW_MARK,
  rotationPeriod,
  rotationRefusal,
  SUFFIX,
  UNKNOWN,
  userNameOf,
  withDefaults,
} from "../arguments";
import type { UserInputs } from "../arguments";
import { nameFromUrn, recordedService, unconfirmedId } from "../identity";
import { Account, isV01, parseJson, split, upgrade } from "../model";
import { Clock, createUser, newClient } from "./api";
import { warn } from "./engine-log";

type FailureRecord = { code: "OUTCOME_UNKNOWN" | "RESPONSE_UNUSABLE"; what: string; todo: string; at: string };
type Props = Record<string, unknown> & { __provider?: string; __failure?: FailureRecord };

const refOf = (id: string, p: Props, urn: unknown = p.__urn) => ({
  id,
  userName: String(p.userName),
  service: recordedService(p),
  urn,
});
// The service recorded anew: in `account` on the TypeScript path (and 0.5.0's plugin), else as the baseUrl output.
const withService = (p: Props, now: string) => {
  const account = parseJson<Account>(p.account);
  return account ? { account: JSON.stringify({ ...account, baseUrl: now }) } : { baseUrl: now };
};

// Pulumi's partial failure: an error with an `id` becomes ErrorResourceInitFailed (the SDK's grpcResponseFromError),
// and the engine records `properties` (inputs, `__provider`, no credentials) under it: a user that may exist is kept.
function record(id: string, properties: Props, ...failure: ErrorArgs): never {
  const error = new StorageUserError(...failure);
  const __failure = properties.__failure ?? {
    code: failure[0],
    ...errorText(...failure),
    at: new Date().toISOString(),
  };
  throw Object.assign(error, { id, properties: { ...properties, __failure }, reasons: [error.message] });
}

// rotateAfter's period in ms, when it is a valid one (check refuses the others).
const periodOf = (rotateAfter: unknown) => {
  const ms = typeof rotateAfter === "string" ? rotationPeriod(rotateAfter) : undefined;
  return typeof ms === "number" ? ms : undefined;
};
// When the user's rotation period started: its create, or the first up with rotateAfter of a user from before 0.7.0.
const rotationStart = (p: Props) => {
  const at = Date.parse(String(parseJson<Account>(p.account)?.createdAt));
  return Number.isNaN(at) ? undefined : at;
};

export function lifecycle(settings: Settings, clock?: Clock) {
  const client = newClient(clock); // one pace and pool per provider process
  const stamp = () => new Date(client.clock.now()).toISOString();
  // A changed replacementTrigger, or a replaced resource of replaceWith, is a replace the engine decides without calling
  // diff; it then calls check a second time, without olds, to draw the replacement's defaults (pulumi/pulumi
  // pkg/resource/deploy/step_generator.go, generateStepsFromDiff and continueStepsFromDiff, v3.250.0). So a URN checked
  // with olds and then without is being replaced: the one place a preview can name the user that stays on the service.
  const checkedWithOlds = new Map<string, { userName: string; connection: unknown }>();
  const warnedAtDiff = new Set<string>();
  const plugin = settings.ns === "storage-user";
  const label = (c: unknown) =>
    typeof c === "string" ? `connection '${c}'` : `the default connection (${settings.ns}:baseUrl)`;
  const current = (connection: unknown) => {
    try {
      return connection === UNKNOWN ? undefined : settings.baseUrl(connection as string | undefined).href;
    } catch {
      return undefined;
    }
  };

  async function check(olds: Props, raw: Props): Promise<dynamic.CheckResult> {
    const urn = raw.__urn;
    if (typeof urn === "string" && urn !== UNKNOWN) {
      const earlier = checkedWithOlds.get(urn);
      checkedWithOlds.delete(urn);
      if (Object.keys(olds).length > 0)
        checkedWithOlds.set(urn, { userName: userNameOf(olds, urn), connection: olds.connection });
      else if (earlier && !warnedAtDiff.delete(urn))
        await warn(urn, "REPLACE_LEAVES_USER", { ...earlier, service: current(earlier.connection), by: "engine" });
    }
    const { [PREVIEW_MARK]: _mark, userName: _given, ...given } = raw;
    const news = { ...given, ...nameInputs(olds, raw, plugin) };
    const failures = inputFailures(news);
    const refusal = rotationRefusal(news.rotateAfter, raw.userName, nameFromUrn(String(raw.__urn)));
    if (refusal) failures.push({ property: "rotateAfter", reason: new StorageUserError(...refusal).message });
    if (news.connection !== UNKNOWN && !failures.some((f) => f.property === "connection")) {
      try {
        settings.baseUrl(news.connection as string | undefined);
      } catch (err) {
        // Not an input of the resource: an empty property, or the engine prints "value {<nil>}".
        failures.push({ property: news.connection === undefined ? "" : "connection", reason: (err as Error).message });
      }
    }
    return { inputs: withDefaults(news), failures };
  }

  async function diff(id: string, olds: Props, news: Props): Promise<dynamic.DiffResult> {
    // The plugin's new suffix (a replace's check drew it) is a new name.
    const renamedTo =
      news[SUFFIX] !== undefined && news[SUFFIX] !== olds[SUFFIX] ? userNameOf(news, news.__urn) : olds.userName;
    const [before, after]: Props[] = [
      withDefaults(olds),
      { ...withDefaults(news), userName: news.userName ?? renamedTo },
    ];
    // There is no update call: a change of what was sent means a new user.
    const replaces: string[] = (["userName", "persistPassword"] as const).filter(
      (k) => news[k] === UNKNOWN || before[k] !== after[k],
    );
    const user = refOf(id, olds, news.__urn);
    // rotateAfter: the user's age past its period is a replace; a user with no recorded start gets one (an update).
    const period = olds.__failure ? undefined : periodOf(news.rotateAfter);
    const started = rotationStart(olds);
    const age = started === undefined ? undefined : client.clock.now() - started;
    const unstarted = period !== undefined && started === undefined && olds.account !== undefined;
    const periodChanged = (olds.rotateAfter ?? undefined) !== (news.rotateAfter ?? undefined);
    if (period !== undefined && age !== undefined && age >= period && replaces.length === 0) {
      replaces.push("rotateAfter");
      await warn(news.__urn, "ROTATION_DUE", { ...user, age: periodText(age), period: String(news.rotateAfter) });
    }
    const now = current(news.connection);
    const renamed = news.connection === UNKNOWN || olds.connection !== news.connection;
    const moved = user.service !== undefined && now !== undefined && now !== user.service;
    const readdressed = moved && now === declaredNewAddress();
    // Said at diff, so preview shows it: a replace leaves the old user behind; a moved connection moves no user.
    if (replaces.length > 0) {
      if (typeof news.__urn === "string") warnedAtDiff.add(news.__urn);
      await warn(news.__urn, "REPLACE_LEAVES_USER", { ...user, now });
    } else if (moved) {
      const u = { ...user, service: user.service!, connection: label(news.connection), now };
      if (readdressed) await warn(news.__urn, "SERVICE_READDRESSED", u);
      else if (renamed) await warn(news.__urn, "CONNECTION_CHANGED", { ...u, from: label(olds.connection) });
      else await warn(news.__urn, "SERVICE_MOVED", u);
    }
    const upgrading = replaces.length === 0 && isV01(olds);
    if (upgrading) await warn(news.__urn, "STATE_UPGRADE", user);
    // A recorded failure always differs (every up repeats its guidance); update rewrites 0.1.x state and a moved URN.
    const urnMoved = typeof olds.__urn === "string" && typeof news.__urn === "string" && olds.__urn !== news.__urn;
    if (replaces.length > 0 || olds.__failure || readdressed || upgrading || urnMoved || unstarted || periodChanged)
      return { changes: true, replaces, deleteBeforeReplace: false };
    // A renamed connection: no answer lets the engine diff the inputs, honouring replaceOnChanges: ["connection"].
    if (renamed) return { replaces: [], deleteBeforeReplace: false };
    return { changes: false, replaces: [], deleteBeforeReplace: false };
  }

  async function create(raw: Props): Promise<dynamic.CreateResult> {
    const inputs = withDefaults(raw) as unknown as UserInputs & Props;
    const userName = userNameOf(inputs, inputs.__urn);
    const resolved = settings.resolve(inputs.connection);
    const service = resolved.baseUrl.href;
    const deadline = Date.now() + (inputs.__createTimeoutMs ?? defaults.createTimeoutMs);
    const result = await createUser(
      { ...resolved, userName, persistPassword: inputs.persistPassword, deadline },
      client,
    );
    const { __createTimeoutMs: _t, __provider, ...kept } = inputs;
    const props = { ...kept, userName };
    if (result.kind === "created")
      return { id: String(result.user.userId), outs: { ...props, ...split(result.user, service, stamp()) } };
    const sent = { userName, service, urn: inputs.__urn };
    const fail: (id: string, ...failure: ErrorArgs) => never = (id, ...failure) =>
      record(id, { ...props, baseUrl: service, ...(__provider === undefined ? {} : { __provider }) }, ...failure);
    if (result.kind === "unknown") {
      const noVerdict = { problem: "noVerdict", ...sent, detail: result.detail } as const;
      fail(unconfirmedId(), "OUTCOME_UNKNOWN", noVerdict, { cause: result.cause });
    }
    const { userId, problems } = result;
    if (userId === undefined) fail(unconfirmedId(), "OUTCOME_UNKNOWN", { problem: "noId", ...sent, problems });
    fail(String(userId), "RESPONSE_UNUSABLE", { problem: "created", ...sent, userId, problems });
  }

  // Reached by a recorded failure (repeated), a renamed connection, 0.1.x state and a moved URN: no API call.
  async function update(id: string, olds: Props, news: Props): Promise<dynamic.UpdateResult> {
    if (olds.__failure) {
      const { code, ...recorded } = olds.__failure;
      record(id, { ...olds, __provider: news.__provider }, code, { problem: "recorded", ...recorded });
    }
    const { __provider: _p, connection: _c, ...outs } = upgrade(olds);
    const now = current(news.connection);
    if (now !== undefined && recordedService(outs) !== undefined && now === declaredNewAddress())
      Object.assign(outs, withService(outs, now));
    if (news.rotateAfter === undefined) delete outs.rotateAfter;
    else outs.rotateAfter = news.rotateAfter;
    if (periodOf(news.rotateAfter) !== undefined && rotationStart(outs) === undefined && outs.account !== undefined)
      outs.account = JSON.stringify({ ...parseJson<Account>(outs.account), createdAt: stamp() });
    if (typeof news.__urn === "string") outs.__urn = news.__urn;
    return { outs: typeof news.connection === "string" ? { ...outs, connection: news.connection } : outs };
  }

  // Refresh: the API has no read call, so all is kept; 0.1.x state gets the address its connection had at the
  // last up (refresh configures from state), in the shape it has: a refresh would not mark a new key secret.
  async function read(id: string, props: Props): Promise<dynamic.ReadResult> {
    const { __provider: _p, ...outs } = props;
    const now = current(props.connection);
    if (props.__failure || recordedService(props) !== undefined || now === undefined) return { id, props: outs };
    await warn(props.__urn, "SERVICE_RECORDED", { ...refOf(id, props), connection: label(props.connection), now });
    return { id, props: { ...outs, ...withService(props, now) } };
  }

  async function remove(id: string, props: Props): Promise<void> {
    await warn(props.__urn, "USER_LEFT_STACK", { ...refOf(id, props), failed: !!props.__failure });
  }

  const configure = (req: dynamic.ConfigureRequest) => settings.configure(req.config);
  return { configure, check, diff, create, update, read, remove };
}
