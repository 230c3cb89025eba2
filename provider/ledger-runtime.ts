// StorageUserLedger's provider, run by the dynamic-provider plugin. Frozen entry: state refers to it as
// `require("pulumi-storage-user/dist/provider/ledger-runtime")`: this path and its methods are a contract.
import type * as dynamic from "@pulumi/pulumi/dynamic";
import { describeForgotten, messages } from "./messages";
import type { ForgottenUser, TrackedUser } from "./model";
import { UNKNOWN } from "./arguments";
import { isUnconfirmed } from "./identity";
import { warn } from "./core/engine-log";

type Props = Record<string, unknown>;
type LedgerUser = TrackedUser & { name: string };
export type LedgerOutputs = { current: Record<string, TrackedUser>; forgotten: ForgottenUser[] };
const reasons = messages.reasons;

const isUnknown = (v: unknown): boolean =>
  v === UNKNOWN || (typeof v === "object" && v !== null && Object.values(v).some(isUnknown));
const usersOf = (p: Props): LedgerUser[] => (Array.isArray(p.users) ? (p.users as LedgerUser[]) : []);
// Ids typed into YAML config often arrive as numbers: both are accepted.
const cleanedUpOf = (p: Props): string[] => (Array.isArray(p.cleanedUp) ? p.cleanedUp.map(String) : []);
const onServiceOf = (id: string): ForgottenUser["onService"] => (isUnconfirmed(id) ? "may exist" : "exists");
const byName = (a: { name: string }, b: { name: string }) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/** The ledger's logic: who vanished between the previous state and today's users. Pure. */
export function reconcile(previous: Partial<LedgerOutputs>, users: LedgerUser[], cleanedUp: string[], at: string) {
  const tracked = ({ id, userName, service }: TrackedUser) => ({
    id,
    userName,
    ...(typeof service === "string" ? { service } : {}),
  });
  const current = Object.fromEntries([...users].sort(byName).map((u) => [u.name, tracked(u)]));
  // A resource renamed with `aliases` keeps its id: it moved, it was not let go of.
  const stillHere = new Set(users.map((u) => u.id));
  const added: ForgottenUser[] = Object.entries(previous.current ?? {})
    .map(([name, u]) => ({ name, ...u }))
    .sort(byName)
    .filter((old) => !stillHere.has(old.id))
    .map(({ name, ...u }) => ({
      ...tracked(u),
      resourceName: name,
      at,
      why: current[name] ? ("replaced" as const) : ("removed" as const),
      onService: onServiceOf(u.id),
    }));
  const done = new Set(cleanedUp);
  const forgotten = [...(previous.forgotten ?? []), ...added].filter((f) => !done.has(f.id));
  return { outputs: { current, forgotten }, added };
}

export async function check(_olds: Props, news: Props): Promise<dynamic.CheckResult> {
  const failures: dynamic.CheckFailure[] = [];
  if (news.users !== UNKNOWN && !Array.isArray(news.users))
    failures.push({ property: "users", reason: reasons.usersNotAList() });
  const seen = new Set<string>();
  for (const [i, u] of usersOf(news).entries()) {
    const bad = ["name", "id", "userName"].filter((k) => !(u as Props)?.[k] || typeof (u as Props)[k] !== "string");
    if (bad.length > 0) failures.push({ property: `users[${i}]`, reason: reasons.ledgerEntryIncomplete(bad) });
    else if (u.service != null && typeof u.service !== "string")
      failures.push({ property: `users[${i}].service`, reason: reasons.ledgerServiceNotText() });
    else if (seen.has(u.name)) failures.push({ property: `users[${i}]`, reason: reasons.ledgerNamesShared(u.name) });
    seen.add(u?.name);
  }
  const ids = news.cleanedUp ?? [];
  const isId = (x: unknown) => typeof x === "string" || Number.isSafeInteger(x);
  if (ids !== UNKNOWN && !(Array.isArray(ids) && ids.every(isId)))
    failures.push({ property: "cleanedUp", reason: reasons.cleanedUpNotIds() });
  return { inputs: news, failures };
}

export async function diff(_id: string, olds: Props, news: Props): Promise<dynamic.DiffResult> {
  // Never a replacement: a new ledger would start with an empty list and lose the record.
  if (isUnknown(news.users) || isUnknown(news.cleanedUp)) return { changes: true, replaces: [] };
  const previous = olds as Partial<LedgerOutputs>;
  const next = reconcile(previous, usersOf(news), cleanedUpOf(news), "").outputs;
  const before = previous.current ?? {};
  // Key order does not survive state; an entry recorded before 0.3.0 has no service, which alone is no change.
  const same = (a?: string, b?: string) => a === undefined || b === undefined || a === b;
  const changed =
    Object.keys(next.current).length !== Object.keys(before).length ||
    Object.entries(next.current).some(
      ([k, u]) => before[k]?.id !== u.id || before[k]?.userName !== u.userName || !same(before[k]?.service, u.service),
    );
  return { changes: changed || next.forgotten.length !== (previous.forgotten ?? []).length, replaces: [] };
}

const keepUrn = (p: Props) => (typeof p.__urn === "string" ? { __urn: p.__urn } : {});

export async function create(news: Props): Promise<dynamic.CreateResult> {
  const { outputs } = reconcile({}, usersOf(news), [], new Date().toISOString());
  return { id: `ledger-${Date.now().toString(36)}`, outs: { ...outputs, ...keepUrn(news) } };
}

export async function update(_id: string, olds: Props, news: Props): Promise<dynamic.UpdateResult> {
  const { outputs, added } = reconcile(olds, usersOf(news), cleanedUpOf(news), new Date().toISOString());
  if (added.length > 0) await warn(news.__urn, "LEDGER_GREW", { added, total: outputs.forgotten.length });
  return { outs: { ...outputs, ...keepUrn(news) } };
}

/** The record ends with the ledger: all of it is printed, so it survives in the operator's log. */
export async function remove(id: string, props: Props): Promise<void> {
  const { current = {}, forgotten = [] } = props as Partial<LedgerOutputs>;
  const tracked = Object.entries(current).map(([name, u]) =>
    describeForgotten({ ...u, resourceName: name, onService: onServiceOf(u.id) }),
  );
  await warn(props.__urn, "LEDGER_DELETED", { id, forgotten, tracked });
}
export { remove as delete };
