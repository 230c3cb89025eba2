/**
 * The provider's behaviour, run by the dynamic-provider plugin. Its exports object *is* the
 * provider that state refers to as `require("pulumi-storage-user/dist/provider/runtime.js")`
 * (see serializable.ts). This module path and these function signatures are a contract with
 * every `__provider` already stored in users' state files: change them only compatibly.
 */
import type * as dynamic from "@pulumi/pulumi/dynamic";
import { defaults } from "./defaults";
import {
  connectionChangedWarning,
  RecordedFailureError,
  replaceWarning,
  serviceMovedWarning,
  serviceReaddressedWarning,
  serviceRecordedWarning,
} from "./errors";
import type { Credentials } from "./app-config";
import { warnAbout } from "./engine-log";
import { createUser } from "./http";
import { UNKNOWN, UserInputs, validateInputs } from "./inputs";
import { CreatedUser } from "./response";
import { configure as configureSettings, connectionLabel, declaredNewAddress, resolveBaseUrl, resolveSettings } from "./settings";

/**
 * Outputs as stored in state. All credentials sit in the one secret `credentials` (marked by
 * the resource's additionalSecretOutputs); resource.ts derives name, password, swift, s3, ftp,
 * env and ftpUrl from it in the program.
 */
export interface StorageUserOutputs {
  userName: string;
  persistPassword: boolean;
  userId: number;
  state: string;
  creationTaskId?: number;
  tasks: CreatedUser["tasks"];
  swiftEndpoint: string;
  s3Endpoint: string;
  ftpHostName: string;
  /** The service the user was created on (its connection's base URL then). Absent in state written by 0.1.x. */
  baseUrl: string;
  /** The connection it was last deployed with; absent: the default one. */
  connection?: string;
  credentials: Credentials;
}

/** Present in the state of a resource whose create did not end cleanly (see errors.ts). */
interface FailureRecord {
  code: "OUTCOME_UNKNOWN" | "RESPONSE_UNUSABLE";
  what: string;
  todo: string;
  at: string;
}

type Props = Record<string, unknown> & { __provider?: string; __failure?: FailureRecord };

export function configure(req: dynamic.ConfigureRequest): void {
  configureSettings(req.config);
}

export async function check(_olds: Props, news: Props): Promise<dynamic.CheckResult> {
  const failures = validateInputs(news);
  const connection = news.connection;
  if (connection !== UNKNOWN && !failures.some((f) => f.property === "connection")) {
    try {
      resolveBaseUrl(connection as string | undefined);
    } catch (err) {
      failures.push({ property: connection === undefined ? "storage:baseUrl" : "connection", reason: (err as Error).message });
    }
  }
  const inputs = { ...news, persistPassword: news.persistPassword ?? defaults.persistPassword };
  return { inputs, failures };
}

const replaceable = ["userName", "persistPassword"] as const;

/** The base URL a connection points at now, or undefined when unknown or not configured. */
function currentService(connection: unknown): string | undefined {
  if (connection === UNKNOWN) return undefined;
  try {
    return resolveBaseUrl(connection as string | undefined).href;
  } catch {
    return undefined;
  }
}

const refOf = (id: string, props: Props) => ({
  id,
  userName: String(props.userName),
  service: typeof props.baseUrl === "string" ? props.baseUrl : undefined,
});

export async function diff(id: string, olds: Props, news: Props): Promise<dynamic.DiffResult> {
  const norm = (p: Props, k: (typeof replaceable)[number]) =>
    k === "persistPassword" ? (p[k] ?? defaults.persistPassword) : p[k];
  // There is no update call: any change of what was sent means a new user.
  const replaces = replaceable.filter((k) => news[k] === UNKNOWN || norm(olds, k) !== norm(news, k));
  const user = refOf(id, olds);
  const now = currentService(news.connection);
  const label = connectionLabel(news.connection as string | undefined);
  const oldConnection = typeof olds.connection === "string" ? olds.connection : undefined;
  const renamed = news.connection === UNKNOWN || oldConnection !== (news.connection ?? undefined);
  const moved = user.service !== undefined && now !== undefined && now !== user.service;
  const readdressed = moved && now === declaredNewAddress();
  // Said here because preview runs diff: a replace leaves the old user on the service, and a
  // user whose connection now points elsewhere stays where it is. Both are printed at preview.
  // Shown under the resource (its URN comes as the __urn input) where the engine allows.
  if (replaces.length > 0) await warnAbout(news.__urn, replaceWarning(user, now));
  else if (readdressed) await warnAbout(news.__urn, serviceReaddressedWarning({ ...user, service: user.service! }, label, now!));
  else if (moved && renamed) await warnAbout(news.__urn, connectionChangedWarning({ ...user, service: user.service! }, connectionLabel(oldConnection), label, now!));
  else if (moved) await warnAbout(news.__urn, serviceMovedWarning({ ...user, service: user.service! }, label, now!));
  // A recorded failure always differs, so every up reaches update and repeats the guidance,
  // even after `pulumi refresh` has cleared the engine's own init-error mark.
  if (replaces.length > 0 || olds.__failure !== undefined || readdressed) return { changes: true, replaces, deleteBeforeReplace: false };
  // Only the connection's name changed: "unknown" lets the engine diff the inputs itself, so it
  // sees `connection` changed and honours replaceOnChanges: ["connection"]; otherwise it runs
  // update, which records the new name and calls no API.
  if (renamed) return { replaces: [], deleteBeforeReplace: false };
  return { changes: false, replaces: [], deleteBeforeReplace: false };
}

export function toOutputs(inputs: UserInputs, user: CreatedUser, baseUrl: string): StorageUserOutputs {
  const { name, password, swift, s3, ftp } = user;
  return {
    userName: inputs.userName,
    persistPassword: inputs.persistPassword,
    ...(inputs.connection === undefined ? {} : { connection: inputs.connection }),
    userId: user.userId,
    state: user.state,
    ...(user.creationTaskId === undefined ? {} : { creationTaskId: user.creationTaskId }),
    tasks: user.tasks,
    swiftEndpoint: swift.endpoint,
    s3Endpoint: s3.endpoint,
    ftpHostName: ftp.hostName,
    baseUrl,
    credentials: { name, password, swift, s3, ftp },
  } satisfies StorageUserOutputs;
}

/** Throws the failure with the properties the engine records: inputs, __provider, no credentials. */
function record(inputs: Props, baseUrl: string, failure: Omit<FailureRecord, "at">, id: string, userId?: number, cause?: unknown): never {
  const __failure: FailureRecord = { ...failure, at: new Date().toISOString() };
  throw new RecordedFailureError(failure.code, failure.what, failure.todo, id, {
    userName: inputs.userName,
    persistPassword: inputs.persistPassword,
    ...(inputs.connection === undefined ? {} : { connection: inputs.connection }),
    baseUrl,
    __provider: inputs.__provider,
    ...(userId === undefined ? {} : { userId }),
    __failure,
  }, cause);
}

const replaceHint =
  "run `pulumi up --replace <urn>` (urn from `pulumi stack --show-urns`) to create a new user, or `pulumi state delete <urn>` to forget this one";

export async function create(raw: Props): Promise<dynamic.CreateResult> {
  const inputs = raw as unknown as UserInputs & Props;
  const { baseUrl, accessToken } = resolveSettings(inputs.connection);
  const budget = inputs.__createTimeoutMs ?? defaults.createTimeoutMs;
  const outcome = await createUser({
    baseUrl,
    accessToken,
    userName: inputs.userName,
    persistPassword: inputs.persistPassword ?? defaults.persistPassword,
    deadline: Date.now() + budget,
  });

  if (outcome.kind === "created") {
    return { id: String(outcome.user.userId), outs: toOutputs(inputs, outcome.user, baseUrl.href) };
  }
  if (outcome.kind === "unusable" && outcome.userId !== undefined) {
    const id = outcome.userId;
    record(inputs, baseUrl.href, {
      code: "RESPONSE_UNUSABLE",
      what: `storage user ${id} ('${inputs.userName}') was created but the API's answer is unusable (${outcome.problems.join("; ")}); it is recorded in the stack so it is not created twice`,
      todo: `its credentials cannot be fetched again (the API has no read call): delete user ${id} on the service, then ${replaceHint}`,
    }, String(id), id);
  }
  const what =
    outcome.kind === "unusable"
      ? `the API answered success but the body is unusable and names no Id (${outcome.problems.join("; ")})`
      : `the create request for '${inputs.userName}' was sent but no verdict came back (${outcome.detail})`;
  record(inputs, baseUrl.href, {
    code: "OUTCOME_UNKNOWN",
    what: `${what}: a storage user '${inputs.userName}' may have been created; the stack records it as unconfirmed so the next up does not create a second one`,
    todo: `check on the service whether user '${inputs.userName}' exists and delete it or note its credentials, then ${replaceHint}`,
  }, `unconfirmed-${Date.now().toString(36)}`, undefined, outcome.kind === "unknown" ? outcome.cause : undefined);
}

/**
 * Reached for resources whose create failed after possibly creating a user (the engine retries
 * an update on them), and when only the connection's name changed: no API call, the user stays
 * on the service it was created on (diff warns if the new connection points elsewhere).
 */
export async function update(id: string, olds: Props, news: Props): Promise<dynamic.UpdateResult> {
  const failure = olds.__failure;
  if (!failure) {
    const { __provider: _p, connection: _c, ...outs } = olds;
    const now = currentService(news.connection);
    // Re-recorded only when STORAGE_SERVICE_NEW_ADDRESS names the new address (see diff).
    if (now !== undefined && typeof olds.baseUrl === "string" && now === declaredNewAddress()) outs.baseUrl = now;
    return { outs: typeof news.connection === "string" ? { ...outs, connection: news.connection } : outs };
  }
  throw new RecordedFailureError(
    failure.code,
    `${failure.what} (recorded ${failure.at}; Pulumi will not create it again on its own)`,
    failure.todo,
    id,
    { ...olds, __provider: news.__provider },
  );
}

/**
 * `pulumi refresh`. The API has no read call, so everything recorded is kept. The one addition:
 * a user from state written by 0.1.x has no recorded service; it gets the address its
 * connection had at the last `pulumi up` (refresh configures the provider from state, not from
 * today's config), with a warning. A recorded address is never changed here.
 */
export async function read(id: string, props: Props): Promise<dynamic.ReadResult> {
  const { __provider: _p, ...outs } = props;
  if (props.__failure || typeof props.baseUrl === "string") return { id, props: outs };
  const connection = typeof props.connection === "string" ? props.connection : undefined;
  const now = currentService(connection);
  if (now === undefined) return { id, props: outs };
  console.warn(serviceRecordedWarning(refOf(id, props), connectionLabel(connection), now));
  return { id, props: { ...outs, baseUrl: now } };
}

/** The API has no delete call: the user stays on the service; say so, loudly and by name. */
async function remove(id: string, props: Props): Promise<void> {
  const who = `'${String(props.userName)}'`;
  const message = !props.__failure
    ? `StorageUser ${who} (id ${id}) left the stack but still exists on the storage service, which has no delete call: delete user ${id} there if it is no longer needed`
    : props.userId !== undefined
      ? `StorageUser ${who} (id ${id}) left the stack; its create answer was unusable, and user ${id} still exists on the storage service: delete it there`
      : `StorageUser ${who} (${id}) left the stack; its create did not finish cleanly, so a user ${who} may exist on the storage service: check and delete it there`;
  console.warn(`warning: ${message}`);
}

// `delete` is a reserved word, so it can only be exported under an alias. Older serialized
// providers call `remove`; keep both.
export { remove as delete, remove };
