// rotateAfter in-process: its grammar, check's refusals, and diff and update over a clock the test sets, for both
// hosts' lifecycle (the dynamic provider's `storage:` settings and the plugin's). The real CLI's preview and up of a
// rotation: test/e2e/engine/rotation.test.ts.
import { afterEach, describe, expect, test, vi } from "vitest";
import { Settings } from "../../provider/config";
import { rotationPeriod, UNKNOWN } from "../../provider/arguments";
import { lifecycle } from "../../provider/core/lifecycle";
import type { Clock } from "../../provider/core/api";
import type { ErrorArgs } from "../../provider/messages";
import { errorSaid, warningSaid } from "../support/said";

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
const news = (extra: object = {}) => ({
  userName: "app-1a2b3c4",
  persistPassword: false,
  rotateAfter: "90d",
  __urn: urn,
  ...extra,
});
const olds = (extra: object = {}) =>
  news({ account: account({ createdAt: new Date(T0).toISOString() }), secrets: "{}", ...extra });

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

  const name = "app";
  test.each<[string, object, ErrorArgs<"ROTATION_INVALID">[1]]>([
    ["a text that is no duration", { rotateAfter: "90 days" }, { problem: "notADuration", name, text: "90 days" }],
    ["a number", { rotateAfter: 90 }, { problem: "notADuration", name, text: "90" }],
    ["zero", { rotateAfter: "0d" }, { problem: "notPositive", name, text: "0d" }],
    ["negative", { rotateAfter: "-5d" }, { problem: "notPositive", name, text: "-5d" }],
    [
      "too large for a date",
      { rotateAfter: "99999999999d" },
      { problem: "tooLarge", name, text: "99999999999d", maxDays: 100_000_000 },
    ],
    [
      "with a given userName",
      { rotateAfter: "90d", userName: "app-prod" },
      { problem: "givenUserName", name, userName: "app-prod" },
    ],
  ])("refuses %s with [ROTATION_INVALID]", async (_label, raw, details) => {
    expect(await reason(raw)).toStrictEqual([["rotateAfter", errorSaid("ROTATION_INVALID", details)]]);
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
      `warning: ${warningSaid("ROTATION_DUE", { id: "7", userName: "app-1a2b3c4", age: "92d3h", period: "90d" })}`,
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
