/**
 * The provider's behaviour, run by the dynamic-provider plugin. Its exports object *is* the
 * provider that state refers to as `require("pulumi-storage-user/dist/provider/runtime.js")`
 * (see serializable.ts). This module path and these function signatures are a contract with
 * every `__provider` already stored in users' state files: change them only compatibly.
 */
import type * as dynamic from "@pulumi/pulumi/dynamic";
import { defaults } from "./defaults";
import { RecordedFailureError } from "./errors";
import type { Credentials } from "./app-config";
import { createUser } from "./http";
import { UNKNOWN, UserInputs, validateInputs } from "./inputs";
import { CreatedUser } from "./response";
import { configure as configureSettings, resolveBaseUrl, resolveSettings } from "./settings";

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
  try {
    resolveBaseUrl();
  } catch (err) {
    failures.push({ property: "storage:baseUrl", reason: (err as Error).message });
  }
  const inputs = { ...news, persistPassword: news.persistPassword ?? defaults.persistPassword };
  return { inputs, failures };
}

const replaceable = ["userName", "persistPassword"] as const;

export async function diff(_id: string, olds: Props, news: Props): Promise<dynamic.DiffResult> {
  const norm = (p: Props, k: (typeof replaceable)[number]) =>
    k === "persistPassword" ? (p[k] ?? defaults.persistPassword) : p[k];
  // There is no update call: any change of what was sent means a new user.
  const replaces = replaceable.filter((k) => news[k] === UNKNOWN || norm(olds, k) !== norm(news, k));
  // A recorded failure always differs, so every up reaches update and repeats the guidance,
  // even after `pulumi refresh` has cleared the engine's own init-error mark.
  return { changes: replaces.length > 0 || olds.__failure !== undefined, replaces, deleteBeforeReplace: false };
}

export function toOutputs(inputs: UserInputs, user: CreatedUser): StorageUserOutputs {
  const { name, password, swift, s3, ftp } = user;
  return {
    userName: inputs.userName,
    persistPassword: inputs.persistPassword,
    userId: user.userId,
    state: user.state,
    ...(user.creationTaskId === undefined ? {} : { creationTaskId: user.creationTaskId }),
    tasks: user.tasks,
    swiftEndpoint: swift.endpoint,
    s3Endpoint: s3.endpoint,
    ftpHostName: ftp.hostName,
    credentials: { name, password, swift, s3, ftp },
  } satisfies StorageUserOutputs;
}

/** Throws the failure with the properties the engine records: inputs, __provider, no credentials. */
function record(inputs: Props, failure: Omit<FailureRecord, "at">, id: string, userId?: number, cause?: unknown): never {
  const __failure: FailureRecord = { ...failure, at: new Date().toISOString() };
  throw new RecordedFailureError(failure.code, failure.what, failure.todo, id, {
    userName: inputs.userName,
    persistPassword: inputs.persistPassword,
    __provider: inputs.__provider,
    ...(userId === undefined ? {} : { userId }),
    __failure,
  }, cause);
}

const replaceHint =
  "run `pulumi up --replace <urn>` (urn from `pulumi stack --show-urns`) to create a new user, or `pulumi state delete <urn>` to forget this one";

export async function create(raw: Props): Promise<dynamic.CreateResult> {
  const inputs = raw as unknown as UserInputs & Props;
  const { baseUrl, accessToken } = resolveSettings();
  const budget = inputs.__createTimeoutMs ?? defaults.createTimeoutMs;
  const outcome = await createUser({
    baseUrl,
    accessToken,
    userName: inputs.userName,
    persistPassword: inputs.persistPassword ?? defaults.persistPassword,
    deadline: Date.now() + budget,
  });

  if (outcome.kind === "created") {
    return { id: String(outcome.user.userId), outs: toOutputs(inputs, outcome.user) };
  }
  if (outcome.kind === "unusable" && outcome.userId !== undefined) {
    const id = outcome.userId;
    record(inputs, {
      code: "RESPONSE_UNUSABLE",
      what: `storage user ${id} ('${inputs.userName}') was created but the API's answer is unusable (${outcome.problems.join("; ")}); it is recorded in the stack so it is not created twice`,
      todo: `its credentials cannot be fetched again (the API has no read call): delete user ${id} on the service, then ${replaceHint}`,
    }, String(id), id);
  }
  const what =
    outcome.kind === "unusable"
      ? `the API answered success but the body is unusable and names no Id (${outcome.problems.join("; ")})`
      : `the create request for '${inputs.userName}' was sent but no verdict came back (${outcome.detail})`;
  record(inputs, {
    code: "OUTCOME_UNKNOWN",
    what: `${what}: a storage user '${inputs.userName}' may have been created; the stack records it as unconfirmed so the next up does not create a second one`,
    todo: `check on the service whether user '${inputs.userName}' exists and delete it or note its credentials, then ${replaceHint}`,
  }, `unconfirmed-${Date.now().toString(36)}`, undefined, outcome.kind === "unknown" ? outcome.cause : undefined);
}

/**
 * Reached only for resources whose create failed after possibly creating a user (the engine
 * retries an update on them), since diff never reports an in-place change.
 */
export async function update(id: string, olds: Props, news: Props): Promise<dynamic.UpdateResult> {
  const failure = olds.__failure;
  if (!failure) {
    const { __provider: _p, ...outs } = olds;
    return { outs };
  }
  throw new RecordedFailureError(
    failure.code,
    `${failure.what} (recorded ${failure.at}; Pulumi will not create it again on its own)`,
    failure.todo,
    id,
    { ...olds, __provider: news.__provider },
  );
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
