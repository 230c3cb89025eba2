// StorageUser rules a pull request's `pulumi preview --policy-pack policy` enforces (README,
// "Policy pack"): a naming rule for `userName`, and no user leaving the stack, which the
// service's create-only API would keep with live credentials, unless the change is approved.
import { PolicyPack, ReportViolation, ResourceValidationArgs, StackValidationArgs } from "@pulumi/policy";
import * as pulumi from "@pulumi/pulumi";
import { previousStorageUsers, RecordedUser, storageUserType } from "./previous-state";

/** Set by whoever approves a removal (e.g. a CI job run for a labelled pull request). */
export const approvalVariable = "PULUMI_STORAGE_USER_ALLOW_REMOVAL";

const maxLength = 32;

/** Lowercase words of letters and digits joined by single hyphens, ending in the stack's name. */
export function nameProblem(userName: string, stack: string): string | undefined {
  if (!/^[a-z][a-z0-9]*(-[a-z0-9]+)*$/.test(userName))
    return "lowercase letters, digits and single hyphens, starting with a letter";
  if (!userName.endsWith(`-${stack}`)) return `ending in '-${stack}' (the stack)`;
  if (userName.length > maxLength) return `at most ${maxLength} characters`;
  return undefined;
}

/**
 * A property the engine does not know at preview (a generated userName: the provider draws it at
 * up) reads as undefined here. @pulumi/policy throws on reading one (`UnknownValueError`, its
 * proxy.js), which would turn the whole policy into an advisory "can't run".
 */
function known<T>(read: () => T): T | undefined {
  try {
    return read();
  } catch (err) {
    if (err instanceof Error && err.message.endsWith("can't be known during preview")) return undefined;
    throw err;
  }
}

function approved(userName: string): boolean {
  const list = (process.env[approvalVariable] ?? "").split(",").map((s) => s.trim());
  return list.includes("*") || list.includes(userName);
}

/** Why a recorded user leaves the stack with this program, or undefined if it stays. */
function leaving(old: RecordedUser, now: StackValidationArgs["resources"]): string | undefined {
  const users = now.filter((r) => r.type === storageUserType);
  const same = users.find((r) => r.urn === old.urn);
  if (same) {
    const userName = known(() => same.props.userName);
    // Unknown until the update (a rotation's generated name): the provider replaces in that case, so does this check.
    if (userName !== old.userName)
      return `replaced: userName '${old.userName}' => '${userName ?? "(known after update)"}'`;
    if (Boolean(known(() => same.props.persistPassword)) !== old.persistPassword)
      return "replaced: persistPassword changed";
    return undefined;
  }
  // Renamed with `aliases`: the same user, still carrying its recorded account.
  if (users.some((r) => known(() => r.props.userName) === old.userName && known(() => r.props.account) === old.account))
    return undefined;
  return "removed from the program";
}

new PolicyPack("storage-user", {
  policies: [
    {
      name: "storage-user-name",
      description: `StorageUser userName, when given: lowercase words joined by hyphens, ending in '-<stack>', at most ${maxLength} characters.`,
      enforcementLevel: "mandatory",
      validateResource: (args: ResourceValidationArgs, reportViolation: ReportViolation) => {
        if (args.type !== storageUserType) return;
        // Unknown at preview when the provider generates it at up: nothing to check yet.
        const userName = known(() => args.props.userName);
        if (typeof userName !== "string") return;
        // A name the provider generated (userName left out): the resource name and 7 hex digits.
        if (userName.startsWith(`${args.name.slice(0, 200)}-`) && /-[0-9a-f]{7}$/.test(userName)) return;
        const problem = nameProblem(userName, pulumi.getStack());
        if (problem)
          reportViolation(`StorageUser '${args.name}' has userName '${userName}': user names are ${problem}.`);
      },
    },
    {
      name: "storage-user-removal-approval",
      description: `No StorageUser leaves the stack (removed or replaced) unless ${approvalVariable} names it.`,
      enforcementLevel: "mandatory",
      validateStack: async (args: StackValidationArgs, reportViolation: ReportViolation) => {
        let before: RecordedUser[];
        try {
          before = await previousStorageUsers();
        } catch (err) {
          // Unverifiable is not approved.
          reportViolation(
            `cannot read the stack's last deployment to check for removed users: ${(err as Error).message}`,
          );
          return;
        }
        for (const old of before) {
          const why = leaving(old, args.resources);
          if (!why || approved(old.userName)) continue;
          reportViolation(
            `StorageUser '${old.userName}' (id ${old.id}) would leave the stack (${why}) but stay on the storage service, which has no delete call. ` +
              `If that is intended, approve it with ${approvalVariable}=${old.userName} (names separated by commas, or *).`,
            old.urn,
          );
        }
      },
    },
  ],
});
