// examples/ci-preview through the unmodified CLI on one deployed stack: its policy pack (run through
// the language host's RunPlugin and policy proxy: the stand-in host's own test) and its workflow's
// review step, run as written. A user leaving the stack needs approval of each, or the label.
import { execFileSync, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { ApiServer, startApiServer } from "../../../server/api-server";
import { installConsumer } from "../../../scripts/consumer";
import { repoRoot, TestStack } from "../../../scripts/stack";
import { userPath } from "../../../scripts/toolchain";
import { failed, ok, onNewestCli } from "../../support/cli-project";

const token = "ci-preview-token-3b7e0a";
const examples = path.join(repoRoot, "examples");
const workflow = fs.readFileSync(path.join(examples, "ci-preview", ".github", "workflows", "preview.yml"), "utf8");
const steps = workflow.split("\n").filter((l) => !l.trim().startsWith("#"));
/** The review: the workflow's `run:` lines from the JSON preview on, and the label it names. */
const reviewLines = steps
  .map((l) => /^\s+- run: (.*)$/.exec(l)?.[1])
  .filter((l) => l && /--json|pulumi-storage-user review/.test(l)) as string[];
const label = /ALLOW_LABEL: (\S+)/.exec(workflow)![1];
let api: ApiServer;
let tmp: string;
let pack: string;
/** The example, copied: the job writes preview.json there, and both test projects run this file at once. */
let example: string;
let stack: TestStack;
let names: { app: string; backup: string };
let deployed: Array<Record<string, string>>;

beforeAll(async () => {
  api = await startApiServer({ token });
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "psu-ci-preview-"));
  // ci-preview runs ../from-config/index.ts; both beside the package as examples/ has it installed.
  for (const dir of ["ci-preview", "from-config"])
    fs.cpSync(path.join(examples, dir), path.join(tmp, "examples", dir), {
      recursive: true,
      filter: (f) => !f.includes("node_modules") && (!/Pulumi\.[^/]+\.yaml$/.test(f) || f.endsWith(".example.yaml")),
    });
  fs.symlinkSync(path.join(installConsumer(), "node_modules"), path.join(tmp, "examples", "node_modules"));
  example = path.join(tmp, "examples", "ci-preview");
  pack = path.join(example, "policy");
  const env = { ...process.env, PATH: userPath(), npm_config_loglevel: "error" };
  execFileSync("npm", ["ci", "--no-audit", "--no-fund", "--prefer-offline"], { cwd: pack, env, stdio: "ignore" });
  // Resource names set, so that a new userName is a replacement, not a delete and a create.
  stack = await TestStack.create({ programDir: example, config: { "storage:baseUrl": api.url } });
  names = { app: `app-${stack.stackName}`, backup: `backup-${stack.stackName}` };
  deployed = [
    { name: "app", userName: names.app },
    { name: "backup", userName: names.backup },
    { name: "auto", rotate: "1" },
  ];
});
afterAll(async () => {
  await stack?.dispose();
  await api?.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

const setUsers = (users: Array<Record<string, string>>) =>
  stack.must(["config", "set", "--path", "users", JSON.stringify(users)]);
const policyPreview = (env?: Record<string, string>) => stack.preview(["--policy-pack", pack], { env });

/** Runs `lines` as a job's steps do (each its own bash -e, in order, stopping at the first failure). */
function job(lines: string[], labels: string[]) {
  const event = path.join(tmp, "event.json");
  fs.writeFileSync(event, JSON.stringify({ pull_request: { number: 7, labels: labels.map((name) => ({ name })) } }));
  const summary = path.join(tmp, `summary-${Date.now()}.md`);
  // A job has no PULUMI_SKIP_CONFIRMATIONS (it implies --yes, which --preview-only refuses).
  const env = {
    ...stack.baseEnv(),
    PULUMI_SKIP_CONFIRMATIONS: "",
    PULUMI_STACK: stack.stackName,
    GITHUB_EVENT_PATH: event,
  };
  Object.assign(env, { GITHUB_STEP_SUMMARY: summary, ALLOW_LABEL: label, GITHUB_ACTIONS: "true" });
  let [output, code, step] = ["", 0, 0];
  for (; step < lines.length && code === 0; step++) {
    const r = spawnSync("bash", ["-e", "-c", lines[step]], { cwd: example, env, encoding: "utf8" });
    [output, code] = [output + r.stdout + r.stderr, r.status ?? 1];
  }
  fs.rmSync(path.join(example, "preview.json"), { force: true });
  // Which step ended the job: the review (the last) when it fails, never the preview.
  if (code !== 0) expect(step, output).toBe(lines.length);
  return { code, output, summary: fs.existsSync(summary) ? fs.readFileSync(summary, "utf8") : "" };
}

test("the workflow previews on pull requests, is never given the API token, and reviews the JSON preview; the label is documented", () => {
  expect(workflow).toMatch(/^on:\n {2}pull_request:/m);
  expect(steps.some((l) => /^\s+- run: pulumi preview\b/.test(l))).toBe(true);
  const forbidden = /STORAGE_ACCESS_TOKEN|storage:accessToken|pulumi (up|update|destroy)\b/;
  expect(steps.filter((l) => forbidden.test(l))).toEqual([]);
  expect(reviewLines).toEqual([
    'pulumi preview --stack "$PULUMI_STACK" --non-interactive --json > preview.json',
    "npx --no-install pulumi-storage-user review preview.json",
  ]);
  expect(label).toBe("allow-storage-user-removal");
  expect(fs.readFileSync(path.join(examples, "ci-preview", "README.md"), "utf8")).toContain(label);
});

// tsc alone, and the pack's own naming logic, which no CLI version changes: the pinned CLI's run.
test.skipIf(onNewestCli)(
  "the pack type-checks with its own dependencies (strict); a userName breaking its naming rule fails the preview",
  async () => {
    execFileSync(process.execPath, [path.join(pack, "node_modules/typescript/bin/tsc"), "-p", pack, "--noEmit"]);
    await setUsers([{ name: "app", userName: "App_Main" }]);
    const pv = failed(await policyPreview());
    expect(pv.output).toContain("storage-user-name");
    expect(pv.output).toContain(
      "StorageUser 'app' has userName 'App_Main': user names are lowercase letters, digits and single hyphens, starting with a letter.",
    );
    await setUsers([{ name: "app", userName: "app-main" }]);
    const wrongStack = failed(await policyPreview());
    expect(wrongStack.output).toContain(
      `has userName 'app-main': user names are ending in '-${stack.stackName}' (the stack).`,
    );
    expect(api.requests).toHaveLength(0);
  },
);

test("the CLI runs the program and the pack through the stand-in host; compliant names and an auto-named user pass preview and up", async () => {
  // The host next to `pulumi` is the repo's stand-in (docs/development.md), taken as bundled: no "from $PATH" warning.
  expect(fs.readFileSync(path.join(stack.cliDir, "pulumi-language-nodejs"), "utf8")).toContain("language-host/main.js");
  await setUsers(deployed); // auto: a trigger that changes later, not one that appears
  // Not --skip-preview: the pack runs in up's preview and in the update (the deploy job).
  const up = ok(
    await stack.run(["up", "--yes", "--non-interactive", "--policy-pack", pack], {
      env: { STORAGE_ACCESS_TOKEN: token },
    }),
  );
  expect(up.output).not.toMatch(/mandatory|violation|from \$PATH/i);
  expect(up.output).toMatch(/Previewing update[\s\S]*Updating/);
  expect(api.users.map((u) => u.Name)).toEqual(expect.arrayContaining([names.app, names.backup]));
  expect(api.users.find((u) => /^auto-[0-9a-f]{7}$/.test(u.Name))).toBeDefined();
});

// The review's own verdict on a preview of creates, and its parsing, which no CLI version changes.
test.skipIf(onNewestCli)(
  "the review: a change that deletes nothing passes; a file that is no preview stops the job with exit 2",
  async () => {
    await setUsers([...deployed, { name: "added" }]);
    expect(ok(job(reviewLines, [])).output).toContain("no storage user is removed or replaced");
    const bad = job(['echo \'{"stack":"dev"}\' > preview.json', reviewLines[1]], []);
    expect(bad.code, bad.output).toBe(2);
    expect(bad.output).toContain(
      "::error title=StorageUser review::cannot read the preview preview.json (no steps list: is this the output of pulumi preview --json?)",
    );
    expect(api.createAttempts).toBe(3);
  },
);

test("users leaving the stack, removed or replaced (a known or a generated new name), fail the pack without approval of each and the review without the label; an added one needs neither", async () => {
  const byName = (n: string) => api.users.find((u) => u.Name === n)!;
  const [app, backup] = [byName(names.app), byName(names.backup)];
  const auto = api.users.find((u) => u.Name.startsWith("auto-"))!;
  const service = new URL(api.url).href;
  const requests = api.requests.length;
  await setUsers([
    { name: "app", userName: `app2-${stack.stackName}` },
    { name: "auto", rotate: "2" },
    { name: "extra", userName: `extra-${stack.stackName}` },
  ]);
  const leave = (u: typeof app, why: string) => `StorageUser '${u.Name}' (id ${u.Id}) would leave the stack (${why})`;
  const removedBackup = leave(backup, "removed from the program");
  // Approving one user approves no other. The replacement's name is drawn at up: the policy sees it unknown, and still runs.
  const partly = failed(await policyPreview({ PULUMI_STORAGE_USER_ALLOW_REMOVAL: names.app }));
  expect(partly.output).toContain("storage-user-removal-approval");
  expect(partly.output).toContain(
    `${removedBackup} but stay on the storage service, which has no delete call. If that is intended, approve it with PULUMI_STORAGE_USER_ALLOW_REMOVAL=${names.backup} (names separated by commas, or *).`,
  );
  expect(partly.output).toContain(leave(auto, `replaced: userName '${auto.Name}' => '(known after update)'`));
  expect(partly.output).not.toContain(`StorageUser '${names.app}' (id ${app.Id}) would leave`);
  expect(partly.output).not.toMatch(/can't run policy|StorageUser 'extra-/);
  // The message for a known new name is the pack's own logic: the pinned CLI's run.
  if (!onNewestCli)
    expect((await policyPreview()).output).toContain(
      leave(app, `replaced: userName '${names.app}' => 'app2-${stack.stackName}'`),
    );
  ok(await policyPreview({ PULUMI_STORAGE_USER_ALLOW_REMOVAL: `${names.app},${auto.Name},${names.backup}` }));

  const r = job(reviewLines, ["documentation"]);
  expect(r.code, r.output).toBe(1);
  expect(r.output).toContain(
    `::error title=StorageUser backup removed::StorageUser 'backup' (id ${backup.Id}, userName '${names.backup}', on ${service}) leaves the stack but stays on the service with working credentials`,
  );
  for (const [name, u] of Object.entries({ app, auto }))
    expect(r.output).toContain(
      `::error title=StorageUser ${name} replaced::StorageUser '${name}' (id ${u.Id}, userName '${u.Name}', on ${service}) is replaced`,
    );
  expect(r.output).not.toContain("StorageUser extra");
  expect(r.output).toContain(`Add the label '${label}'`);
  expect(r.summary).toContain(`| backup | removed | ${backup.Id} | ${names.backup} | ${service} |`);
  const allowed = ok(job(reviewLines, [label]));
  expect(allowed.output).toContain(`::warning title=StorageUser backup removed::`);
  expect(allowed.output).toContain(`allowed by the label '${label}'`);
  expect(api.requests.length).toBe(requests);
});

test("pulumi destroy --preview-only --json through the same review step flags every user", async () => {
  const preview = `pulumi destroy --stack "$PULUMI_STACK" --non-interactive --preview-only --json > preview.json`;
  const r = job([preview, reviewLines[1]], []);
  expect(r.code, r.output).toBe(1);
  for (const res of await stack.resources())
    expect(r.output).toContain(`(id ${res.id}, userName '${res.outputs.userName}'`);
  expect(await stack.resources()).toHaveLength(3); // a preview: nothing went
});
