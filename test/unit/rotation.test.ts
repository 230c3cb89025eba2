// rotateAfter in-process: its grammar, check's refusals, and diff and update over a clock the test sets, for both
// hosts' lifecycle (the dynamic provider's `storage:` settings and the plugin's). The real CLI's preview and up of a
// rotation: test/e2e/engine/rotation.test.ts.
import { afterEach, describe, expect, test, vi } from "vitest";
import { Settings } from "../../provider/config";
import { rotationPeriod, UNKNOWN } from "../../provider/arguments";
import { lifecycle } from "../../provider/core/lifecycle";
import type { Clock } from "../../provider/core/api";

const DAY = 86_400_000;
const T0 = Date.parse("2026-01-10T08:00:00.000Z");
let nowMs = T0;
const clock: Clock = { now: () => nowMs, sleep: async () => undefined, random: () => 0 };
const urn = "urn:pulumi:dev::p::pulumi-nodejs:dynamic/storage:StorageUser::app";
const warnings = vi.spyOn(console, "warn").mockImplementation(() => undefined);
afterEach(() => warnings.mockClear());

function user(ns: "storage" | "storage-user") {
  const l = lifecycle(new Settings(ns), clock);
  l.configure({ config: { get: (k: string) => ({ [`${ns}:baseUrl`]: "https://s.example.com" })[k] } } as never);
  return l;
}
const account = (extra: object = {}) => JSON.stringify({ baseUrl: "https://s.example.com/", tasks: [], ...extra });
const olds = (extra: object = {}) => ({
  userName: "app-1a2b3c4",
  persistPassword: false,
  rotateAfter: "90d",
  account: account({ createdAt: new Date(T0).toISOString() }),
  secrets: "{}",
  __urn: urn,
  ...extra,
});
const news = (extra: object = {}) => ({
  userName: "app-1a2b3c4",
  persistPassword: false,
  rotateAfter: "90d",
  __urn: urn,
  ...extra,
});

test.each<[string, ReturnType<typeof rotationPeriod>]>([
  ["90d", 90 * DAY],
  ["12h", DAY / 2],
  ["1d12h", 1.5 * DAY],
  ["2w", 14 * DAY],
  ["30m", 1_800_000],
  ["1w2d3h4m", 9 * DAY + 3 * 3_600_000 + 4 * 60_000],
  ["90 days", "notADuration"],
  ["", "notADuration"],
  ["1.5d", "notADuration"],
  ["d", "notADuration"],
  ["90D", "notADuration"],
  ["3mo", "notADuration"],
  [" 90d", "notADuration"],
  ["0d", "notPositive"],
  ["0h0m", "notPositive"],
  ["-5d", "notPositive"],
  ["100000001d", "tooLarge"],
  ["99999999999999999999w", "tooLarge"],
  ["100000000d", 100_000_000 * DAY],
])("rotateAfter %j is %s", (text, expected) => {
  expect(rotationPeriod(text)).toStrictEqual(expected);
});

describe.each(["storage", "storage-user"] as const)("%s: check", (ns) => {
  const l = user(ns);
  const reason = async (raw: object) =>
    (await l.check({}, { __urn: urn, __nameAtUp: true, ...raw })).failures?.map((f) => [f.property, f.reason]);

  test.each<[string, object, string]>([
    [
      "a text that is no duration",
      { rotateAfter: "90 days" },
      `StorageUser 'app' has rotateAfter "90 days", which is not a duration: write whole numbers with units w (weeks), d (days), h (hours) or m (minutes), e.g. rotateAfter: "90d" or "1d12h"`,
    ],
    [
      "a number",
      { rotateAfter: 90 },
      `StorageUser 'app' has rotateAfter "90", which is not a duration: write whole numbers with units w (weeks), d (days), h (hours) or m (minutes), e.g. rotateAfter: "90d" or "1d12h"`,
    ],
    [
      "zero",
      { rotateAfter: "0d" },
      `StorageUser 'app' has rotateAfter "0d", which is not a positive period: give a period longer than zero, e.g. rotateAfter: "90d", or leave rotateAfter out to rotate only on replacementTrigger`,
    ],
    [
      "negative",
      { rotateAfter: "-5d" },
      `StorageUser 'app' has rotateAfter "-5d", which is not a positive period: give a period longer than zero, e.g. rotateAfter: "90d", or leave rotateAfter out to rotate only on replacementTrigger`,
    ],
    [
      "too large for a date",
      { rotateAfter: "99999999999d" },
      `StorageUser 'app' has rotateAfter "99999999999d", which reaches past the last date a clock can show: give a period of at most 100000000d, e.g. rotateAfter: "365d", or leave rotateAfter out`,
    ],
    [
      "with a given userName",
      { rotateAfter: "90d", userName: "app-prod" },
      `StorageUser 'app' sets both rotateAfter and userName 'app-prod': each rotation creates the new user while the old one still exists, and the service refuses a name that is taken: leave userName out so each rotation gets a new generated name, or drop rotateAfter and rotate with replacementTrigger`,
    ],
  ])("refuses %s with [ROTATION_INVALID]", async (_label, raw, text) => {
    expect(await reason(raw)).toStrictEqual([["rotateAfter", `[ROTATION_INVALID] ${text}`]]);
  });

  test("passes a period, a value not known yet, and a generated name kept from the last up", async () => {
    expect(await reason({ rotateAfter: "90d" })).toStrictEqual([]);
    expect(await reason({ rotateAfter: UNKNOWN })).toStrictEqual([]);
    const kept = await l.check({ userName: "app-1a2b3c4", rotateAfter: "90d" }, { rotateAfter: "90d", __urn: urn });
    expect(kept.failures).toStrictEqual([]);
  });
});

describe.each(["storage", "storage-user"] as const)("%s: diff and update over the clock", (ns) => {
  const l = user(ns);
  const noChange = { changes: false, replaces: [], deleteBeforeReplace: false };

  test("before the period nothing changes and nothing is said", async () => {
    nowMs = T0 + 90 * DAY - 60_000;
    expect(await l.diff("7", olds(), news())).toStrictEqual(noChange);
    expect(warnings.mock.calls).toStrictEqual([]);
  });

  test("at the period the user is replaced, and the warning names its age and the period", async () => {
    nowMs = T0 + 92 * DAY + 3 * 3_600_000 + 59_000;
    expect(await l.diff("7", olds(), news())).toStrictEqual({
      changes: true,
      replaces: ["rotateAfter"],
      deleteBeforeReplace: false,
    });
    const said = warnings.mock.calls.map(([text]) => String(text).replace(/^warning: \[(\w+)\].*/, "$1"));
    expect(said).toStrictEqual(["ROTATION_DUE", "REPLACE_LEAVES_USER"]);
    expect(warnings.mock.calls[0][0]).toBe(
      "warning: [ROTATION_DUE] StorageUser 'app-1a2b3c4' (id 7) is 92d3h old, past its rotateAfter of 90d: it is replaced by a new user with new credentials",
    );
  });

  test("a shorter period is a rotation due now; a longer one an update of the input, with no API call", async () => {
    nowMs = T0 + 40 * DAY;
    expect((await l.diff("7", olds(), news({ rotateAfter: "30d" }))).replaces).toStrictEqual(["rotateAfter"]);
    expect(await l.diff("7", olds(), news({ rotateAfter: "180d" }))).toStrictEqual({ ...noChange, changes: true });
    const { outs } = await l.update("7", olds(), news({ rotateAfter: "180d" }));
    expect([outs.rotateAfter, JSON.parse(outs.account as string).createdAt]).toStrictEqual([
      "180d",
      new Date(T0).toISOString(),
    ]);
  });

  test("a user from before 0.7.0 starts its period at the first up with rotateAfter (an update, no API call)", async () => {
    nowMs = T0 + 400 * DAY;
    const old = olds({ rotateAfter: undefined, account: account() });
    expect(await l.diff("7", old, news())).toStrictEqual({ ...noChange, changes: true });
    const { outs } = await l.update("7", old, news());
    expect([outs.rotateAfter, JSON.parse(outs.account as string)]).toStrictEqual([
      "90d",
      { baseUrl: "https://s.example.com/", tasks: [], createdAt: new Date(nowMs).toISOString() },
    ]);
    // Recorded: the next diff counts from there.
    expect(await l.diff("7", { ...old, ...outs }, news())).toStrictEqual(noChange);
  });

  test("without rotateAfter, an old user's state is left as it is; a recorded failure is not rotated", async () => {
    nowMs = T0 + 400 * DAY;
    const old = olds({ rotateAfter: undefined, account: account() });
    expect(await l.diff("7", old, news({ rotateAfter: undefined }))).toStrictEqual(noChange);
    const failed = olds({ account: undefined, __failure: { code: "OUTCOME_UNKNOWN", what: "w", todo: "t", at: "x" } });
    expect((await l.diff("unconfirmed-1", failed, news())).replaces).toStrictEqual([]);
  });
});
