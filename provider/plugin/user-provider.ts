/**
 * The StorageUser provider's behaviour, run by the dynamic-provider plugin through the frozen
 * entry module provider/runtime.ts. The API can only create: see docs/lifecycle.md.
 */
import type * as dynamic from "@pulumi/pulumi/dynamic";
import { defaults } from "../defaults";
import { ErrorArgs, errorText, FailureRecord, recordedFailure, StorageUserError } from "../errors";
import {
  connectionChangedWarning,
  connectionLabel,
  leftStackWarning,
  replaceWarning,
  serviceMovedWarning,
  serviceReaddressedWarning,
  serviceRecordedWarning,
  upgradeWarning,
} from "../warnings";
import { PREVIEW_MARK, UNKNOWN, userNameOf, validateInputs } from "../inputs";
import { UserInputs, withDefaults } from "../wire";
import { Account, needsUpgrade, stored, toOutputs, upgradeOutputs } from "../state";
import { warnAbout } from "./engine-log";
import { createUser } from "./http/create-user";
import { declaredNewAddress, Settings } from "./settings";

type Props = Record<string, unknown> & { __provider?: string; __failure?: FailureRecord };

/** The lifecycle over one provider's settings: what each entry (runtime.ts, the package's plugin) serves. */
export function userProvider(settings: Settings) {
  return {
    configure: (req: dynamic.ConfigureRequest) => settings.configure(req.config),
    check: (olds: Props, news: Props) => check(settings, olds, news),
    diff: (id: string, olds: Props, news: Props) => diff(settings, id, olds, news),
    create: (inputs: Props) => create(settings, inputs),
    update: (id: string, olds: Props, news: Props) => update(settings, id, olds, news),
    read: (id: string, props: Props) => read(settings, id, props),
    remove,
  };
}

async function check(settings: Settings, olds: Props, raw: Props): Promise<dynamic.CheckResult> {
  const userName = userNameOf(olds, raw);
  // The preview mark has done its work: it never reaches diff, create or state.
  const { [PREVIEW_MARK]: _mark, ...given } = raw;
  const news = userName === undefined ? given : { ...given, userName };
  const failures = validateInputs(news);
  const connection = news.connection;
  if (connection !== UNKNOWN && !failures.some((f) => f.property === "connection")) {
    try {
      settings.resolveBaseUrl(connection as string | undefined);
    } catch (err) {
      // Not an input of the resource: an empty property, or the engine prints "value {<nil>}".
      failures.push({ property: connection === undefined ? "" : "connection", reason: (err as Error).message });
    }
  }
  return { inputs: withDefaults(news), failures };
}

const replaceable = ["userName", "persistPassword"] as const;

/** The base URL a connection points at now, or undefined when unknown or not configured. */
function currentService(settings: Settings, connection: unknown): string | undefined {
  if (connection === UNKNOWN) return undefined;
  try {
    return settings.resolveBaseUrl(connection as string | undefined).href;
  } catch {
    return undefined;
  }
}

/** The recorded service: in `account` from 0.2.0, at the top in 0.1.x state and in recorded failures. */
const recordedService = (props: Props): string | undefined => {
  const url = stored<Account>(props.account)?.baseUrl ?? props.baseUrl;
  return typeof url === "string" ? url : undefined;
};

const refOf = (id: string, props: Props, urn?: unknown) => ({
  id,
  userName: String(props.userName),
  service: recordedService(props),
  urn,
});

async function diff(settings: Settings, id: string, olds: Props, news: Props): Promise<dynamic.DiffResult> {
  const [before, after] = [withDefaults(olds), withDefaults(news)];
  // There is no update call: any change of what was sent means a new user.
  const replaces = replaceable.filter((k) => news[k] === UNKNOWN || before[k] !== after[k]);
  const user = refOf(id, olds, news.__urn);
  const now = currentService(settings, news.connection);
  const label = connectionLabel(news.connection as string | undefined);
  const oldConnection = typeof olds.connection === "string" ? olds.connection : undefined;
  const renamed = news.connection === UNKNOWN || oldConnection !== (news.connection ?? undefined);
  const moved = user.service !== undefined && now !== undefined && now !== user.service;
  const readdressed = moved && now === declaredNewAddress();
  // Said here because preview runs diff: a replace leaves the old user on the service, and a
  // user whose connection now points elsewhere stays where it is. Both are printed at preview.
  // Shown under the resource (its URN comes as the __urn input) where the engine allows.
  if (replaces.length > 0) await warnAbout(news.__urn, "REPLACE_LEAVES_USER", replaceWarning(user, now));
  else if (readdressed)
    await warnAbout(
      news.__urn,
      "SERVICE_READDRESSED",
      serviceReaddressedWarning({ ...user, service: user.service! }, label, now),
    );
  else if (moved && renamed)
    await warnAbout(
      news.__urn,
      "CONNECTION_CHANGED",
      connectionChangedWarning({ ...user, service: user.service! }, connectionLabel(oldConnection), label, now),
    );
  else if (moved)
    await warnAbout(news.__urn, "SERVICE_MOVED", serviceMovedWarning({ ...user, service: user.service! }, label, now));
  const upgrade = replaces.length === 0 && needsUpgrade(olds);
  if (upgrade) await warnAbout(news.__urn, "STATE_UPGRADE", upgradeWarning(user));
  // A recorded failure always differs, so every up reaches update and repeats the guidance,
  // even after `pulumi refresh` has cleared the engine's own init-error mark. State written by
  // 0.1.x differs too: update rewrites it in today's shape (no API call), which the program's
  // outputs are read from.
  // A URN recorded in the outputs (for delete's warning) that the resource no longer has
  // (renamed with aliases, new parent) is rewritten the same way.
  const urnMoved = typeof olds.__urn === "string" && typeof news.__urn === "string" && olds.__urn !== news.__urn;
  if (replaces.length > 0 || olds.__failure !== undefined || readdressed || upgrade || urnMoved)
    return { changes: true, replaces, deleteBeforeReplace: false };
  // Only the connection's name changed: "unknown" lets the engine diff the inputs itself, so it
  // sees `connection` changed and honours replaceOnChanges: ["connection"]; otherwise it runs
  // update, which records the new name and calls no API.
  if (renamed) return { replaces: [], deleteBeforeReplace: false };
  return { changes: false, replaces: [], deleteBeforeReplace: false };
}

/**
 * Throws the failure with the properties the engine records (Pulumi's partial-failure path):
 * inputs, __provider, no credentials, so a user that may exist is never forgotten by the stack.
 */
function record(
  inputs: UserInputs & Props,
  baseUrl: string,
  id: string,
  ...failure: ErrorArgs<FailureRecord["code"]>
): never {
  const __failure: FailureRecord = { code: failure[0], ...errorText(...failure), at: new Date().toISOString() };
  throw recordedFailure(new StorageUserError(...failure), id, {
    userName: inputs.userName,
    persistPassword: inputs.persistPassword,
    ...(inputs.connection === undefined ? {} : { connection: inputs.connection }),
    ...(typeof inputs.__urn === "string" ? { __urn: inputs.__urn } : {}),
    baseUrl,
    __provider: inputs.__provider,
    __failure,
  });
}

async function create(settingsOf: Settings, raw: Props): Promise<dynamic.CreateResult> {
  const inputs = withDefaults(raw as unknown as UserInputs & Props);
  const settings = settingsOf.resolve(inputs.connection);
  const deadline = Date.now() + (inputs.__createTimeoutMs ?? defaults.createTimeoutMs);
  const outcome = await createUser({
    ...settings,
    userName: inputs.userName,
    persistPassword: inputs.persistPassword,
    deadline,
  });
  const baseUrl = settings.baseUrl;
  if (outcome.kind === "created")
    return { id: String(outcome.user.userId), outs: toOutputs(inputs, outcome.user, baseUrl.href) };
  if (outcome.kind === "unusable" && outcome.userId !== undefined) {
    const details = {
      problem: "created",
      userId: outcome.userId,
      userName: inputs.userName,
      service: baseUrl.href,
      problems: outcome.problems,
      urn: inputs.__urn,
    } as const;
    record(inputs, baseUrl.href, String(outcome.userId), "RESPONSE_UNUSABLE", details);
  }
  const sent = { userName: inputs.userName, service: baseUrl.href, urn: inputs.__urn };
  const id = `unconfirmed-${Date.now().toString(36)}`;
  if (outcome.kind === "unknown")
    record(
      inputs,
      baseUrl.href,
      id,
      "OUTCOME_UNKNOWN",
      { problem: "noVerdict", ...sent, detail: outcome.detail },
      { cause: outcome.cause },
    );
  record(inputs, baseUrl.href, id, "OUTCOME_UNKNOWN", { problem: "noId", ...sent, problems: outcome.problems });
}

/**
 * Reached for resources whose create failed after possibly creating a user (the engine retries
 * an update on them), when only the connection's name changed, and for state written by 0.1.x:
 * no API call, the user stays on the service it was created on (diff warns if the new
 * connection points elsewhere).
 */
async function update(settings: Settings, id: string, olds: Props, news: Props): Promise<dynamic.UpdateResult> {
  if (olds.__failure) {
    const { code, what, todo, at } = olds.__failure;
    const again = [code, { problem: "recorded", what, todo, at }] as ErrorArgs<typeof code>;
    throw recordedFailure(new StorageUserError(...again), id, { ...olds, __provider: news.__provider });
  }
  const { __provider: _p, connection: _c, ...outs } = upgradeOutputs(olds);
  const now = currentService(settings, news.connection);
  // Re-recorded only when STORAGE_SERVICE_NEW_ADDRESS names the new address (see diff).
  const account = stored<Account>(outs.account);
  if (now !== undefined && account?.baseUrl !== undefined && now === declaredNewAddress())
    outs.account = JSON.stringify({ ...account, baseUrl: now });
  if (typeof news.__urn === "string") outs.__urn = news.__urn;
  return { outs: typeof news.connection === "string" ? { ...outs, connection: news.connection } : outs };
}

/**
 * `pulumi refresh`. The API has no read call, so everything recorded is kept. The one addition:
 * a user from state written by 0.1.x has no recorded service; it gets the address its
 * connection had at the last `pulumi up` (refresh configures the provider from state, not from
 * today's config), with a warning. A recorded address is never changed here.
 */
async function read(settings: Settings, id: string, props: Props): Promise<dynamic.ReadResult> {
  const { __provider: _p, ...outs } = props;
  if (props.__failure || recordedService(props) !== undefined) return { id, props: outs };
  const connection = typeof props.connection === "string" ? props.connection : undefined;
  const now = currentService(settings, connection);
  if (now === undefined) return { id, props: outs };
  await warnAbout(
    props.__urn,
    "SERVICE_RECORDED",
    serviceRecordedWarning(refOf(id, props), connectionLabel(connection), now),
  );
  // Kept in the shape it has: a refresh is no registration, so a key new to this resource
  // would not be marked secret (only `up` rewrites 0.1.x state; see update).
  const account = stored<Account>(props.account);
  return {
    id,
    props: account ? { ...outs, account: JSON.stringify({ ...account, baseUrl: now }) } : { ...outs, baseUrl: now },
  };
}

/** The API has no delete call: the user stays on the service; say so, as a warning of that user, by name. */
async function remove(id: string, props: Props): Promise<void> {
  await warnAbout(props.__urn, "USER_LEFT_STACK", leftStackWarning(refOf(id, props), !!props.__failure));
}
