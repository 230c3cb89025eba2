// `pulumi-storage-user review preview.json`: the engine asks no provider about a removal at preview, so this
// names each StorageUser a change removes or replaces, which stays on the service (docs/ci.md).
import * as fs from "node:fs";
import { isUserType, nameFromUrn, recordedService, typeFromUrn } from "../provider/identity";

const REPLACE = new Set(["replace", "create-replacement", "delete-replaced"]);

type Old = {
  id?: string;
  inputs?: { userName?: string };
  outputs?: { userName?: string; baseUrl?: string; account?: unknown };
};
type Step = { op: string; urn: string; oldState?: Old };
type Flagged = { kind: "replaced" | "removed"; resource: string; id: string; userName: string; service: string };

function readPreview(file: string | undefined): Step[] | string {
  try {
    const digest = JSON.parse(fs.readFileSync(file ?? 0, "utf8")) as { steps?: unknown } | null;
    return Array.isArray(digest?.steps)
      ? (digest.steps as Step[])
      : "no steps list: is this the output of pulumi preview --json?";
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

// What the old state says of a user: plain fields only (credentials are "[secret]" in a preview).
function describe(step: Step): Omit<Flagged, "kind"> {
  const old = step.oldState ?? {};
  const outputs = old.outputs ?? {};
  return {
    resource: nameFromUrn(step.urn),
    id: old.id ?? "?",
    userName: outputs.userName ?? old.inputs?.userName ?? "?",
    service: recordedService(outputs) ?? "its service (not recorded: run pulumi refresh)",
  };
}

/** Runs the review on `file` (standard input when absent), reports, and returns the exit status. */
export function review(file: string | undefined): number {
  const label = process.env.ALLOW_LABEL || "allow-storage-user-removal";
  const steps = readPreview(file);
  if (typeof steps === "string") {
    console.log(
      `::error title=StorageUser review::cannot read the preview ${file ?? "(stdin)"} (${steps}): pass the output of pulumi preview --json`,
    );
    return 2;
  }
  // A replacement shows as several steps of one URN; the delete of the old user is the one to name.
  const byUrn = new Map<string, Flagged>();
  for (const step of steps.filter((s) => isUserType(typeFromUrn(s.urn)))) {
    const kind = REPLACE.has(step.op) ? "replaced" : step.op === "delete" ? "removed" : undefined;
    if (kind && !(byUrn.has(step.urn) && !step.oldState)) byUrn.set(step.urn, { kind, ...describe(step) });
  }
  const found = [...byUrn.values()];
  if (found.length === 0) {
    console.log("StorageUser review: no storage user is removed or replaced by this change.");
    return 0;
  }
  const allowed = labels().includes(label);
  for (const u of found)
    console.log(
      `::${allowed ? "warning" : "error"} title=StorageUser ${u.resource} ${u.kind}::StorageUser '${u.resource}' (id ${u.id}, userName '${u.userName}', on ${u.service}) ` +
        `${u.kind === "replaced" ? "is replaced: a new user is created and this one leaves the stack" : "leaves the stack"} ` +
        `but stays on the service with working credentials (it has no delete call): delete user ${u.id} there once nothing uses it.`,
    );
  if (process.env.GITHUB_STEP_SUMMARY) {
    const rows = found.map((u) => `| ${u.resource} | ${u.kind} | ${u.id} | ${u.userName} | ${u.service} |`);
    const table = [
      "### Storage users left on the service",
      "",
      "| resource | change | id | userName | service |",
      "| --- | --- | --- | --- | --- |",
      ...rows,
      "",
    ];
    fs.appendFileSync(process.env.GITHUB_STEP_SUMMARY, table.join("\n"));
  }
  console.log(
    allowed
      ? `StorageUser review: ${found.length} storage user(s) removed or replaced; allowed by the label '${label}'.`
      : `StorageUser review: ${found.length} storage user(s) removed or replaced. Add the label '${label}' to the pull request to allow it, then re-run this job.`,
  );
  return allowed ? 0 : 1;
}
