// rotateAfter through the real CLI, from TypeScript and from YAML (the package's plugin): the machine's clock moved
// past the period by libfaketime in the environment of `pulumi` (the engine starts the provider with it; the CLI, a Go
// program, keeps its own clock), never by waiting. Before the period nothing is sent; after it preview names the
// rotation and why, up creates one new user with new credentials and lets the old one go, and the next up sends
// nothing. Every refusal of a period: test/unit/rotation.test.ts.
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { ApiServer, startApiServer } from "../../../server/api-server";
import { repoRoot, TestStack } from "../../../scripts/stack";
import { hits, secretsOf, withEncodings } from "../../support/secrets";
import { daysLater as clock, failed, FAKETIME_LIB, Lang, ok, userType, usersStack } from "../../support/cli-project";
import { errorSaid, warningSaid } from "../../support/said";

const daysLater = (days: number) => ({ env: clock(days) });
const token = "rotation-token-5d0e2a";

test("libfaketime is installed (.ci/run: apt-get install libfaketime)", () => {
  expect(fs.existsSync(FAKETIME_LIB)).toBe(true);
});

describe.each<Lang>(["TypeScript", "YAML"])("%s: a user with rotateAfter: 90d", (lang) => {
  let api: ApiServer;
  let stack: TestStack;
  /** examples/app-config over the users' stack: the application's dotenv file. */
  let app: TestStack;
  let envFile: string;
  const handedOver = async () => {
    ok(await app.up());
    return /^AWS_SECRET_ACCESS_KEY='?([^'\n]*)'?$/m.exec(fs.readFileSync(envFile, "utf8"))![1];
  };
  const user = async () => {
    const state = (await stack.resources(userType(lang))).find((r) => r.id);
    return { id: state!.id as string, userName: state!.outputs.userName as string };
  };
  const s3Secret = (userName: string) => api.users.find((u) => u.Name === userName)!.S3Connection.SecretKey;

  beforeAll(async () => {
    api = await startApiServer({ token });
    stack = await usersStack(lang, { count: 1, prefix: "rot", auto: true, rotateAfter: "90d" }, token, {
      STORAGE_API_URL: api.url,
    });
    envFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "rotation-app-")), "app.env");
    app = await TestStack.create({
      programDir: path.join(repoRoot, "examples", "app-config"),
      shareBackendWith: stack,
      config: {
        "app-config:usersStack": `organization/${lang === "YAML" ? "yaml-users" : "users"}/${stack.stackName}`,
        "app-config:user": "rot-0",
        "app-config:file": envFile,
      },
    });
  });
  afterAll(async () => {
    await app?.dispose();
    if (envFile) fs.rmSync(path.dirname(envFile), { recursive: true, force: true });
    await stack?.dispose();
    await api?.close();
  });

  test("before the period, preview and up send nothing and change nothing", async () => {
    ok(await stack.up());
    expect(api.createAttempts).toBe(1);
    const first = await user();
    const pv = ok(await stack.preview([], daysLater(89)));
    expect(pv.output).not.toMatch(/replace|ROTATION_DUE/);
    const up = ok(await stack.up([], daysLater(89)));
    expect(up.output).not.toMatch(/replace|ROTATION_DUE|USER_LEFT_STACK/);
    expect([api.createAttempts, await user()]).toStrictEqual([1, first]);
    expect(await handedOver()).toBe(s3Secret(first.userName));
  });

  test("past it, preview names the rotation and why; up creates one new user with new credentials, which the application's stack picks up; the next up sends nothing", async () => {
    const old = await user();
    const pv = ok(await stack.preview([], daysLater(91)));
    expect(pv.output).toContain(`warning: ${warningSaid("ROTATION_DUE", { ...old, age: "91d", period: "90d" })}`);
    expect(pv.output).toMatch(/1 to replace/);
    expect(api.createAttempts).toBe(1);

    const up = ok(await stack.up([], daysLater(91)));
    expect(api.createAttempts).toBe(2);
    const rotated = await user();
    expect(rotated.userName).toMatch(/^rot-0-[0-9a-f]{7}$/);
    expect([rotated.userName === old.userName, rotated.id === old.id]).toStrictEqual([false, false]);
    expect(s3Secret(rotated.userName)).not.toBe(s3Secret(old.userName));
    expect(up.output).toContain(
      warningSaid("USER_LEFT_STACK", { ...old, service: new URL(api.url).href, failed: false }),
    );

    // The application's stack picks the new credentials up at its next up.
    expect(await handedOver()).toBe(s3Secret(rotated.userName));
    // Both users' credentials and the token: in no state, no output of the stacks, no command's output.
    const needles = withEncodings([["the API token", token], ...api.users.flatMap(secretsOf)]);
    const places: [string, string][] = [
      ["the users' state", stack.stateFileText()],
      ["the application's state", app.stateFileText()],
      ["the preview", pv.output],
      ["the up", up.output],
      ["the stack outputs", JSON.stringify(await stack.outputs())],
    ];
    expect(hits(places, needles)).toStrictEqual([]);
    const again = ok(await stack.up([], daysLater(91)));
    expect(again.output).not.toMatch(/ROTATION_DUE/);
    expect([api.createAttempts, await user()]).toStrictEqual([2, rotated]);
  });

  test("a given userName beside rotateAfter is refused at preview, naming why", async () => {
    const named = await usersStack(lang, { count: 1, prefix: "rotn", rotateAfter: "90d" }, token, {
      STORAGE_API_URL: api.url,
    });
    try {
      const r = failed(await named.preview());
      const details = { problem: "givenUserName", name: "rotn-0", userName: "rotn-0" } as const;
      expect(r.output).toContain(errorSaid("ROTATION_INVALID", details));
      expect(api.createAttempts).toBe(2);
    } finally {
      await named.dispose();
    }
  });
});
