// The committed surface reports (surface/, docs/development.md "Releases") are the build's: the
// TypeScript declarations (API Extractor), the error and warning codes and the config keys here;
// the Go and Python SDKs' in test/e2e/surface.test.ts, which needs Go and griffe. Then the rules
// `npm run release` applies to two releases' reports: which names a change removes or changes, and
// when upgrade notes name them.
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, expect, test } from "vitest";
import {
  exportedNames,
  namedIn,
  Part,
  reportChanges,
  reportFiles,
  staleMessage,
  staleReports,
} from "../../scripts/surface";
import { repoRoot } from "../../scripts/toolchain";

const here: Part[] = ["typescript", "codes", "config"];
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "psu-surface-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

test("the committed TypeScript, codes and config reports are the build's (else: npm run surface)", () => {
  const stale = staleReports(repoRoot, here);
  expect(stale, staleMessage(stale)).toStrictEqual([]);
});

test("a build whose entry lost an export and whose catalogue lost a code differs from the reports, named with the command that rewrites them", () => {
  // A copy of the build and its reports: ftpUrlOf no longer exported, the USAGE code gone.
  const copy = path.join(tmp, "broken");
  for (const f of ["dist/provider", "package.json", "surface"])
    fs.cpSync(path.join(repoRoot, f), path.join(copy, f), { recursive: true });
  fs.symlinkSync(path.join(repoRoot, "node_modules"), path.join(copy, "node_modules"));
  const index = path.join(copy, "dist/provider/index.d.ts");
  const before = fs.readFileSync(index, "utf8");
  fs.writeFileSync(index, before.replace(/, ftpUrlOf\b|\bftpUrlOf, /, ""));
  expect(fs.readFileSync(index, "utf8")).not.toBe(before);
  const messages = path.join(copy, "dist/provider/messages.js");
  const catalogue = fs.readFileSync(messages, "utf8");
  fs.writeFileSync(
    messages,
    catalogue.replace(
      /^exports\.errorCodes = .*$/m,
      (l) => `${l}\nexports.errorCodes = exports.errorCodes.filter((c) => c !== "USAGE");`,
    ),
  );
  const stale = staleReports(copy, here);
  expect(stale.map((s) => s.split("\n")[0])).toStrictEqual(["surface/typescript/index.api.md:", "surface/codes.txt:"]);
  expect(stale[0].split("\n").slice(1)).toStrictEqual(["  - export function ftpUrlOf(ftp: FtpConnection): string;"]);
  expect(stale[1].split("\n").slice(1)).toStrictEqual(["  - error USAGE"]);
  expect(staleMessage(stale)).toContain("`npm run surface`");
});

/** The committed reports, one of them edited. */
function edited(file: string, edit: (text: string) => string): [Map<string, string>, Map<string, string>] {
  const files = [...reportFiles.typescript, ...reportFiles.codes, ...reportFiles.config];
  const before = new Map(files.map((f) => [f, fs.readFileSync(path.join(repoRoot, f), "utf8")]));
  const after = new Map(before);
  const text = edit(before.get(file)!);
  expect(text).not.toBe(before.get(file));
  after.set(file, text);
  return [before, after];
}

test("release's diff: a removed export, a removed and a changed member, each by name; an added member is no change", () => {
  const [before, after] = edited("surface/typescript/index.api.md", (t) =>
    t
      .replace(/\/\/ @public\nexport function ftpUrlOf\([^\n]*\n\n/, "")
      .replace("    userName?: pulumi.Input<string>;\n", "")
      .replace(
        "    persistPassword?: pulumi.Input<boolean>;\n",
        "    persistPassword?: pulumi.Input<string>;\n    retireAfter?: pulumi.Input<string>;\n",
      ),
  );
  expect(reportChanges(before, after)).toStrictEqual([
    { surface: "pulumi-storage-user", name: "ftpUrlOf", what: "removed" },
    { surface: "pulumi-storage-user", name: "StorageUserArgs.persistPassword", what: "changed" },
    { surface: "pulumi-storage-user", name: "StorageUserArgs.userName", what: "removed" },
  ]);
  expect(reportChanges(before, before)).toStrictEqual([]);
});

test("release's diff: a narrowed type in another entry, a changed error's details, a removed code and a changed variable", () => {
  const [before, automation] = edited("surface/typescript/automation.api.md", (t) =>
    t.replace('Pick<Workspace, "workDir" | "projectSettings">', 'Pick<Workspace, "workDir">'),
  );
  expect(reportChanges(before, automation)).toStrictEqual([
    { surface: "pulumi-storage-user/automation", name: "StackLike.workspace", what: "changed" },
  ]);
  const [, details] = edited("surface/typescript/index.api.md", (t) =>
    t.replace(/(CONFIG_INVALID: \{\n\s+unknownKeys: \(d: \{\n\s+keys: )readonly string\[\]/, "$1string"),
  );
  expect(reportChanges(before, details)).toStrictEqual([
    { surface: "pulumi-storage-user", name: "messages.errors.CONFIG_INVALID", what: "changed" },
  ]);
  const [, codes] = edited("surface/codes.txt", (t) => t.replace("warning LEDGER_GREW\n", ""));
  expect(reportChanges(before, codes)).toStrictEqual([
    { surface: "codes", name: "LEDGER_GREW", what: "removed (warning)" },
  ]);
  const [, config] = edited("surface/config.txt", (t) =>
    t.replace("env STORAGE_API_URL (storage:baseUrl; storage-user:baseUrl)", "env STORAGE_API_URL (storage:baseUrl)"),
  );
  expect(reportChanges(before, config)).toStrictEqual([
    {
      surface: "config",
      name: "STORAGE_API_URL",
      what: "changed: was env STORAGE_API_URL (storage:baseUrl; storage-user:baseUrl)",
    },
  ]);
});

test("upgrade notes name a change by its name or its last two segments as a word; an unexported type's member by its last segment", () => {
  const [before] = edited("surface/codes.txt", (t) => `${t} `);
  const exported = exportedNames(before);
  expect(
    [...exported].filter((n) => ["StackLike", "StorageUser", "messages", "Outputs"].includes(n)).sort(),
  ).toStrictEqual(["StackLike", "StorageUser"]);
  const notes =
    "- `StackLike.workspace` needs `projectSettings`. `[CONFIG_INVALID]`'s details. Go: `GetStorageUser` is gone; Python `Credentials.ftp`. `messages.warnings.ROTATION_DUE` changed.";
  const named = (surface: string, name: string) => namedIn(notes, { surface, name, what: "removed" }, exported);
  expect([
    named("pulumi-storage-user/automation", "StackLike.workspace"),
    named("pulumi-storage-user", "messages.errors.CONFIG_INVALID"),
    named("Go", "GetStorageUser"),
    named("Python", "outputs.Credentials.ftp"),
    named("pulumi-storage-user", "messages.warnings.ROTATION_DUE"),
    // Not named: another member of a named type, a type named only as part of a longer name, an
    // exported type's member by its last segment alone.
    named("pulumi-storage-user/automation", "StackLike.name"),
    named("Go", "StorageUser"),
    named("pulumi-storage-user", "StorageUser.x.projectSettings"),
    named("Go", "Storage"),
  ]).toStrictEqual([true, true, true, true, true, false, false, false, false]);
});
