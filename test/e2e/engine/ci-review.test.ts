// examples/ci-preview's workflow: a pull request previews with no storage token, and the review step
// (`pulumi-storage-user review`, the package's bin as the job's npm ci installs it) runs its own
// `run:` lines as written (bash, in the example's directory, with the env a GitHub Actions job gives
// them) against a stack deployed from the example. A removal and a replacement are annotated with
// the user's resource, id, userName and service and fail the job unless the pull request has the
// label; a change that deletes nothing passes. Nothing reaches the storage API.
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { ApiServer, startApiServer } from "../../../server/api-server";
import { installConsumer } from "../../../scripts/consumer";
import { repoRoot, TestStack } from "../../../scripts/stack";
import { onNewestCli } from "../../support/cli-project";

const token = "ci-review-token-93d1";
const examples = path.join(repoRoot, "examples");
const workflow = fs.readFileSync(path.join(examples, "ci-preview", ".github", "workflows", "preview.yml"), "utf8");
const steps = workflow.split("\n").filter((l) => !l.trim().startsWith("#"));
/** The review: the workflow's `run:` lines from the JSON preview on, and the label it names. */
const reviewLines = steps
  .map((l) => /^\s+- run: (.*)$/.exec(l)?.[1])
  .filter((l) => l !== undefined && /--json|pulumi-storage-user review/.test(l)) as string[];
const label = /ALLOW_LABEL: (\S+)/.exec(workflow)![1];

let api: ApiServer;
let stack: TestStack;
let tmp: string;
/** The example's directory, copied: the job writes preview.json there, and each test project runs this file at once. */
let example: string;
beforeAll(async () => {
  api = await startApiServer({ token });
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "psu-ci-review-"));
  // ci-preview runs ../from-config/index.ts; both beside the package as examples/ has it installed.
  for (const dir of ["ci-preview", "from-config"])
    fs.cpSync(path.join(examples, dir), path.join(tmp, "examples", dir), {
      recursive: true,
      filter: (f) => !/Pulumi\.[^/]+\.yaml$/.test(f) || f.endsWith(".example.yaml"),
    });
  fs.symlinkSync(path.join(installConsumer(), "node_modules"), path.join(tmp, "examples", "node_modules"));
  example = path.join(tmp, "examples", "ci-preview");
  stack = await TestStack.create({ programDir: example, config: { "storage:baseUrl": api.url } });
  await setUsers([{ name: "app", userName: "ci-app" }, { name: "gone", userName: "ci-gone" }, { name: "rot" }]);
  const up = await stack.up([], { env: { STORAGE_ACCESS_TOKEN: token } }); // the deploy job
  expect(up.code, up.output).toBe(0);
});
afterAll(async () => {
  await stack?.dispose();
  await api?.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

const setUsers = (users: Array<Record<string, string>>) =>
  stack.must(["config", "set", "--path", "users", JSON.stringify(users)]);
const users = async (): Promise<Record<string, { id: string; userName: string }>> =>
  Object.fromEntries(
    (await stack.resources()).map((r) => [r.urn.split("::").pop(), { id: r.id, userName: r.outputs.userName }]),
  );

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
    GITHUB_STEP_SUMMARY: summary,
    ALLOW_LABEL: label,
    GITHUB_ACTIONS: "true",
  };
  let output = "";
  let code = 0;
  let step = 0;
  for (; step < lines.length && code === 0; step++) {
    const r = spawnSync("bash", ["-e", "-c", lines[step]], { cwd: example, env, encoding: "utf8" });
    output += r.stdout + r.stderr;
    code = r.status ?? 1;
  }
  fs.rmSync(path.join(example, "preview.json"), { force: true });
  // Which step ended the job: the review (the last) when it fails, never the preview.
  if (code !== 0) expect(step, output).toBe(lines.length);
  return { code, output, summary: fs.existsSync(summary) ? fs.readFileSync(summary, "utf8") : "" };
}

test("the workflow previews on pull requests, is never given the API token, and reviews the JSON preview; the label is documented", () => {
  expect(workflow).toMatch(/^on:\n {2}pull_request:/m);
  expect(steps.some((l) => /^\s+- run: pulumi preview\b/.test(l))).toBe(true);
  expect(steps.filter((l) => /STORAGE_ACCESS_TOKEN|storage:accessToken|pulumi (up|update|destroy)\b/.test(l))).toEqual(
    [],
  );
  expect(reviewLines).toEqual([
    'pulumi preview --stack "$PULUMI_STACK" --non-interactive --json > preview.json',
    "npx --no-install pulumi-storage-user review preview.json",
  ]);
  expect(label).toBe("allow-storage-user-removal");
  expect(fs.readFileSync(path.join(examples, "ci-preview", "README.md"), "utf8")).toContain(label);
});

// The review's own verdict on a preview of creates, and its parsing, which no CLI version changes:
// the pinned CLI's run. The newest CLI's --json runs in the two tests after.
test.skipIf(onNewestCli)(
  "a change that deletes nothing passes; a file that is no preview stops the job with exit 2, saying what to pass",
  async () => {
    const sent = api.requests.length;
    await setUsers([
      { name: "app", userName: "ci-app" },
      { name: "gone", userName: "ci-gone" },
      { name: "rot" },
      { name: "added" },
    ]);
    const r = job(reviewLines, []);
    expect(r.code, r.output).toBe(0);
    expect(r.output).toContain("no storage user is removed or replaced");
    expect(api.requests.length).toBe(sent);
    const bad = job(['echo \'{"stack":"dev"}\' > preview.json', reviewLines[1]], []);
    expect(bad.code, bad.output).toBe(2);
    expect(bad.output).toContain(
      "::error title=StorageUser review::cannot read the preview preview.json (no steps list: is this the output of pulumi preview --json?)",
    );
  },
);

test("a removal and a replacement are annotated with id, userName and service and fail the job without the label", async () => {
  const before = await users();
  const service = new URL(api.url).href;
  const sent = api.requests.length;
  await setUsers([{ name: "app", userName: "ci-app-2" }, { name: "rot" }]);
  const r = job(reviewLines, ["documentation"]);
  expect(r.code, r.output).toBe(1);
  expect(r.output).toContain(
    `::error title=StorageUser gone removed::StorageUser 'gone' (id ${before.gone.id}, userName 'ci-gone', on ${service}) leaves the stack but stays on the service with working credentials`,
  );
  expect(r.output).toContain(
    `::error title=StorageUser app replaced::StorageUser 'app' (id ${before.app.id}, userName 'ci-app', on ${service}) is replaced`,
  );
  expect(r.output).not.toContain("StorageUser rot");
  expect(r.output).toContain(`Add the label '${label}'`);
  expect(r.summary).toContain(`| gone | removed | ${before.gone.id} | ci-gone | ${service} |`);
  const allowed = job(reviewLines, [label]);
  expect(allowed.code, allowed.output).toBe(0);
  expect(allowed.output).toContain(`::warning title=StorageUser gone removed::`);
  expect(allowed.output).toContain(`allowed by the label '${label}'`);
  expect(api.requests.length).toBe(sent);
});

test("pulumi destroy --preview-only --json through the same step flags every user", async () => {
  const before = await users();
  const r = job(
    [`pulumi destroy --stack "$PULUMI_STACK" --non-interactive --preview-only --json > preview.json`, reviewLines[1]],
    [],
  );
  expect(r.code, r.output).toBe(1);
  for (const [name, u] of Object.entries(before))
    expect(r.output).toContain(`StorageUser '${name}' (id ${u.id}, userName '${u.userName}'`);
  expect((await users()).app.id).toBe(before.app.id); // a preview: nothing went
});
