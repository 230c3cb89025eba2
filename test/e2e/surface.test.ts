// The Go and Python SDKs' committed surface reports (surface/go.txt, surface/python.txt) are the
// SDKs' own (`go doc -all`, griffe; the TypeScript, codes and config reports: test/unit/surface.test.ts),
// and the release's comparison of two SDKs (apidiff, griffe's breaking changes) names what a copy of
// them removed. Needs Go and griffe (tools/apidiff/build.sh, tools/toolchain/griffe.sh).
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, expect, test } from "vitest";
import { goChanges, pythonChanges, staleMessage, staleReports } from "../../scripts/surface";
import { repoRoot } from "../../scripts/toolchain";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "psu-surface-e2e-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

test("the committed Go and Python reports are the SDKs' (else: npm run surface)", () => {
  const stale = staleReports(repoRoot, ["go", "python"]);
  expect(stale, staleMessage(stale)).toStrictEqual([]);
});

test("SDKs that lost a Go method and a Python property differ from the reports, and the release's comparison names both", () => {
  // A copy of both SDKs and the reports: the Go output method FtpUrl and the Python property ftp_url gone.
  const copy = path.join(tmp, "broken");
  for (const f of ["sdk", "surface"]) fs.cpSync(path.join(repoRoot, f), path.join(copy, f), { recursive: true });
  const cut = (file: string, pattern: RegExp) => {
    const before = fs.readFileSync(path.join(copy, file), "utf8");
    const after = before.replace(pattern, "");
    expect(after).not.toBe(before);
    fs.writeFileSync(path.join(copy, file), after);
  };
  cut("sdk/go/storageuser/storageUser.go", /\nfunc \(o StorageUserOutput\) FtpUrl\(\)[^\n]*\n[^\n]*\n\}\n/);
  cut(
    "sdk/python/pulumi_storage_user/storage_user.py",
    /\n {4}@_builtins\.property\n {4}@pulumi\.getter\(name="ftpUrl"\)\n {4}def ftp_url\(self\)[^\n]*\n(?: {8}[^\n]*\n|\n)*?(?= {4}@)/,
  );

  const stale = staleReports(copy, ["go", "python"]);
  expect(stale.map((s) => s.split("\n")[0])).toStrictEqual(["surface/go.txt:", "surface/python.txt:"]);
  expect(stale[0]).toContain("  - func (o StorageUserOutput) FtpUrl() pulumi.StringOutput");
  expect(stale[1]).toContain("  - def pulumi_storage_user.StorageUser.ftp_url(self) -> pulumi.Output[_builtins.str]");
  expect(staleMessage(stale)).toContain("`npm run surface`");

  expect(goChanges(repoRoot, copy)).toStrictEqual([
    { surface: "Go", name: "StorageUserOutput.FtpUrl", what: "removed" },
  ]);
  expect(pythonChanges(repoRoot, copy)).toStrictEqual([
    { surface: "Python", name: "StorageUser.ftp_url", what: "Public object was removed" },
  ]);
  expect([goChanges(repoRoot, repoRoot), pythonChanges(repoRoot, repoRoot)]).toStrictEqual([[], []]);
});
