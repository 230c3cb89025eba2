/**
 * The StorageUserLedger provider's behaviour, run by the dynamic-provider plugin through the
 * frozen entry module provider/ledger-runtime.ts. docs/ledger.md explains the design.
 */
import type * as dynamic from "@pulumi/pulumi/dynamic";
import { argumentReasons } from "../errors";
import type { ForgottenUser, LedgerOutputs, LedgerUser, TrackedUser } from "../ledger-types";
import { describeForgotten, ledgerDeletedWarning, ledgerGrewWarning } from "../warnings";
import { UNKNOWN } from "../inputs";
import { warnAbout } from "./engine-log";

type Props = Record<string, unknown>;

const isUnknown = (v: unknown): boolean =>
  v === UNKNOWN ||
  (Array.isArray(v) ? v.some(isUnknown) : typeof v === "object" && v !== null && Object.values(v).some(isUnknown));

const usersOf = (p: Props): LedgerUser[] => (Array.isArray(p.users) ? (p.users as LedgerUser[]) : []);
// Ids typed into YAML config often arrive as numbers: accept both.
const cleanedUpOf = (p: Props): string[] => (Array.isArray(p.cleanedUp) ? p.cleanedUp.map(String) : []);

export function onServiceOf(id: string): ForgottenUser["onService"] {
  return id.startsWith("unconfirmed-") ? "may exist" : "exists";
}

/**
 * The ledger's whole logic: who vanished between the previous state and today's users. Pure,
 * so tests can drive it without the engine.
 */
export function reconcile(
  previous: LedgerOutputs,
  users: LedgerUser[],
  cleanedUp: string[],
  at: string,
): { outputs: LedgerOutputs; added: ForgottenUser[] } {
  const byName = (a: { name: string }, b: { name: string }) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
  const current: Record<string, TrackedUser> = {};
  for (const u of [...users].sort(byName))
    current[u.name] = {
      id: u.id,
      userName: u.userName,
      ...(typeof u.service === "string" ? { service: u.service } : {}),
    };
  // A resource renamed with `aliases` keeps its id: it moved, it was not let go of.
  const stillHere = new Set(users.map((u) => u.id));
  const added: ForgottenUser[] = [];
  const before = Object.entries(previous.current ?? {})
    .map(([name, u]) => ({ name, ...u }))
    .sort(byName);
  for (const { name, ...old } of before) {
    const now = current[name];
    if (stillHere.has(old.id)) continue;
    added.push({
      id: old.id,
      userName: old.userName,
      ...(old.service ? { service: old.service } : {}),
      resourceName: name,
      at,
      why: now ? "replaced" : "removed",
      onService: onServiceOf(old.id),
    });
  }
  const done = new Set(cleanedUp);
  const forgotten = [...(previous.forgotten ?? []), ...added].filter((f) => !done.has(f.id));
  return { outputs: { current, forgotten }, added };
}

const isIdList = (v: unknown) => Array.isArray(v) && v.every((x) => typeof x === "string" || Number.isSafeInteger(x));

export async function check(_olds: Props, news: Props): Promise<dynamic.CheckResult> {
  const failures: dynamic.CheckFailure[] = [];
  if (news.users !== UNKNOWN && !Array.isArray(news.users))
    failures.push({ property: "users", reason: argumentReasons.usersNotAList });
  const seen = new Set<string>();
  for (const [i, u] of usersOf(news).entries()) {
    const bad = ["name", "id", "userName"].filter(
      (k) => typeof (u as unknown as Props)?.[k] !== "string" || (u as unknown as Props)[k] === "",
    );
    if (bad.length > 0) failures.push({ property: `users[${i}]`, reason: argumentReasons.ledgerEntryIncomplete(bad) });
    else if (u.service != null && typeof u.service !== "string")
      failures.push({ property: `users[${i}].service`, reason: argumentReasons.ledgerServiceNotText });
    else if (seen.has(u.name))
      failures.push({ property: `users[${i}]`, reason: argumentReasons.ledgerNamesShared(u.name) });
    seen.add(u?.name);
  }
  if (news.cleanedUp !== undefined && news.cleanedUp !== UNKNOWN && !isIdList(news.cleanedUp))
    failures.push({ property: "cleanedUp", reason: argumentReasons.cleanedUpNotIds });
  return { inputs: news, failures };
}

// Key order does not survive the round trip through state, so maps are compared entry by entry.
function sameUsers(a: Record<string, TrackedUser>, b: Record<string, TrackedUser>): boolean {
  const keys = Object.keys(a);
  // An entry recorded before 0.3.0 has no service: not a change on its own (an upgrade shows no
  // diff); the next update for another reason records it.
  const sameService = (x?: string, y?: string) => x === undefined || y === undefined || x === y;
  return (
    keys.length === Object.keys(b).length &&
    keys.every(
      (k) => b[k]?.id === a[k].id && b[k]?.userName === a[k].userName && sameService(b[k]?.service, a[k].service),
    )
  );
}

export async function diff(_id: string, olds: Props, news: Props): Promise<dynamic.DiffResult> {
  // Never a replacement: a new ledger would start with an empty list and lose the record.
  if (isUnknown(news.users) || isUnknown(news.cleanedUp)) return { changes: true, replaces: [] };
  const previous = olds as unknown as LedgerOutputs;
  const next = reconcile(previous, usersOf(news), cleanedUpOf(news), "").outputs;
  const changes =
    !sameUsers(next.current, previous.current ?? {}) || next.forgotten.length !== (previous.forgotten ?? []).length;
  return { changes, replaces: [] };
}

/** The ledger's own URN (the program's `__urn` input), kept in the outputs for delete's warning. */
const urnOf = (p: Props) => (typeof p.__urn === "string" ? { __urn: p.__urn } : {});

export async function create(news: Props): Promise<dynamic.CreateResult> {
  const { outputs } = reconcile({ current: {}, forgotten: [] }, usersOf(news), [], new Date().toISOString());
  return { id: `ledger-${Date.now().toString(36)}`, outs: { ...outputs, ...urnOf(news) } };
}

export async function update(_id: string, olds: Props, news: Props): Promise<dynamic.UpdateResult> {
  const { outputs, added } = reconcile(
    olds as unknown as LedgerOutputs,
    usersOf(news),
    cleanedUpOf(news),
    new Date().toISOString(),
  );
  if (added.length > 0) await warnAbout(news.__urn, "LEDGER_GREW", ledgerGrewWarning(added, outputs.forgotten.length));
  return { outs: { ...outputs, ...urnOf(news) } };
}

/** The record ends with the ledger: print all of it so it survives in the operator's log. */
export async function remove(id: string, props: Props): Promise<void> {
  const { current = {}, forgotten = [] } = props as unknown as LedgerOutputs;
  const tracked = Object.entries(current).map(([name, u]) =>
    describeForgotten({ ...u, resourceName: name, onService: onServiceOf(u.id) }),
  );
  await warnAbout(props.__urn, "LEDGER_DELETED", ledgerDeletedWarning(id, forgotten, tracked));
}
