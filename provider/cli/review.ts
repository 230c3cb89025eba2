// `pulumi-storage-user review preview.json`: the CI review step for `pulumi preview --json` (or
// `pulumi destroy --preview-only --json`). Every StorageUser the change would delete or replace
// stays alive on the storage service, which has no delete call, with working credentials. The
// engine does not ask a provider about a removal at preview, so nothing else in the preview says
// so: each such step becomes a GitHub Actions annotation naming the user (resource, id, userName,
// service), and the job fails unless the pull request carries the label in ALLOW_LABEL (default:
// allow-storage-user-removal). Pull request labels are read from GITHUB_EVENT_PATH, as GitHub
// Actions sets it; a table goes to GITHUB_STEP_SUMMARY when that is set.
// Exit 0: nothing to review, or allowed; 1: a removal or replacement without the label; 2: the
// preview cannot be read. Shipped in the package (it was a script to copy from examples/ci-preview),
// so a job runs the version it deploys with.
import * as fs from "node:fs";

const TYPE = "pulumi-nodejs:dynamic/storage:StorageUser";
const REPLACE = new Set(["replace", "create-replacement", "delete-replaced"]);

/** One step of `pulumi preview --json`, as far as the review reads it. */
interface PreviewStep {
  op: string;
  urn: string;
  oldState?: {
    id?: string;
    inputs?: { userName?: string };
    outputs?: { userName?: string; baseUrl?: string; account?: unknown };
  };
}

interface Flagged {
  kind: "replaced" | "removed";
  resource: string;
  id: string;
  userName: string;
  service: string;
}

function readPreview(file: string | undefined): { steps: PreviewStep[] } | string {
  try {
    const digest = JSON.parse(fs.readFileSync(file ?? 0, "utf8")) as { steps?: unknown } | null;
    if (!Array.isArray(digest?.steps)) return "no steps list: is this the output of pulumi preview --json?";
    return digest as { steps: PreviewStep[] };
  } catch (err) {
    return (err as NodeJS.ErrnoException).code ?? "not JSON";
  }
}

function labels(): string[] {
  const file = process.env.GITHUB_EVENT_PATH;
  if (!file || !fs.existsSync(file)) return [];
  const event = JSON.parse(fs.readFileSync(file, "utf8")) as { pull_request?: { labels?: { name: string }[] } };
  return (event.pull_request?.labels ?? []).map((l) => l.name);
}

/** What the old state says of a user: plain fields only (credentials are "[secret]" in a preview). */
function describe(step: PreviewStep): Omit<Flagged, "kind"> {
  const old = step.oldState ?? {};
  const outputs = old.outputs ?? {};
  let account: { baseUrl?: string } = {};
  try {
    account =
      typeof outputs.account === "string"
        ? (JSON.parse(outputs.account) as typeof account)
        : ((outputs.account as typeof account) ?? {});
  } catch {
    account = {};
  }
  return {
    resource: step.urn.split("::").slice(3).join("::"),
    id: old.id ?? "?",
    userName: outputs.userName ?? old.inputs?.userName ?? "?",
    // 0.2 state records it in `account`; 0.1.x at the top, after `pulumi refresh`.
    service: account.baseUrl ?? outputs.baseUrl ?? "its service (not recorded: run pulumi refresh)",
  };
}

const ofUser = (step: PreviewStep) => step.urn.split("::")[2]?.split("$").pop() === TYPE;

/** Runs the review on `file` (standard input when absent), writes its report, returns the exit status. */
export function review(file: string | undefined): number {
  const label = process.env.ALLOW_LABEL || "allow-storage-user-removal";
  const digest = readPreview(file);
  if (typeof digest === "string") {
    console.log(
      `::error title=StorageUser review::cannot read the preview ${file ?? "(stdin)"} (${digest}): pass the output of pulumi preview --json`,
    );
    return 2;
  }
  // A replacement shows as several steps of one URN; the delete of the old user is the one to name.
  const byUrn = new Map<string, Flagged>();
  for (const step of digest.steps.filter(ofUser)) {
    const kind = REPLACE.has(step.op) ? "replaced" : step.op === "delete" ? "removed" : undefined;
    if (!kind || (byUrn.has(step.urn) && !step.oldState)) continue;
    byUrn.set(step.urn, { kind, ...describe(step) });
  }
  const found = [...byUrn.values()];
  if (found.length === 0) {
    console.log("StorageUser review: no storage user is removed or replaced by this change.");
    return 0;
  }
  const allowed = labels().includes(label);
  const level = allowed ? "warning" : "error";
  for (const u of found) {
    const what =
      u.kind === "replaced" ? "is replaced: a new user is created and this one leaves the stack" : "leaves the stack";
    console.log(
      `::${level} title=StorageUser ${u.resource} ${u.kind}::StorageUser '${u.resource}' (id ${u.id}, userName '${u.userName}', on ${u.service}) ${what} ` +
        `but stays on the service with working credentials (it has no delete call): delete user ${u.id} there once nothing uses it.`,
    );
  }
  if (process.env.GITHUB_STEP_SUMMARY) {
    const rows = found.map((u) => `| ${u.resource} | ${u.kind} | ${u.id} | ${u.userName} | ${u.service} |`);
    fs.appendFileSync(
      process.env.GITHUB_STEP_SUMMARY,
      [
        "### Storage users left on the service",
        "",
        "| resource | change | id | userName | service |",
        "| --- | --- | --- | --- | --- |",
        ...rows,
        "",
      ].join("\n"),
    );
  }
  if (allowed) {
    console.log(
      `StorageUser review: ${found.length} storage user(s) removed or replaced; allowed by the label '${label}'.`,
    );
    return 0;
  }
  console.log(
    `StorageUser review: ${found.length} storage user(s) removed or replaced. Add the label '${label}' to the pull request to allow it, then re-run this job.`,
  );
  return 1;
}
