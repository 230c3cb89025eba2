import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { expect, test } from "vitest";
import { packageVersion as v, repoRoot } from "../../scripts/toolchain";

// `npm run artifacts` (dist/ is built by the run's pretest); the repo guard holds the clone unchanged by it.
test("npm run artifacts writes each artifact of the version, and each installs from that folder alone", () => {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), "psu-release-"));
  try {
    execFileSync(process.execPath, ["dist/scripts/artifacts.js", "--out", out], { cwd: repoRoot, stdio: "inherit" });
    const at = "go/github.com/pulumi-storage-user/pulumi-storage-user/sdk/go/@v/";
    const files = (fs.readdirSync(out, { recursive: true }) as string[]).filter(
      (f) => !fs.statSync(path.join(out, f)).isDirectory(),
    );
    expect(files.sort()).toStrictEqual([
      "SHA256SUMS",
      ...["list", `v${v}.info`, `v${v}.mod`, `v${v}.zip`].map((f) => at + f),
      `pulumi-storage-user-${v}.tgz`,
      `pulumi_storage_user-${v}-py3-none-any.whl`,
      `pulumi_storage_user-${v}.tar.gz`,
    ]);
    const checked = execFileSync("sha256sum", ["--check", "--strict", "SHA256SUMS"], { cwd: out, encoding: "utf8" });
    expect(checked.split("\n").filter((l) => l.endsWith(": OK")).length).toBe(7);
    expect([
      fs.readFileSync(path.join(out, at, "list"), "utf8"),
      fs.readFileSync(path.join(out, at, `v${v}.mod`), "utf8"),
    ]).toStrictEqual([`v${v}\n`, fs.readFileSync(path.join(repoRoot, "sdk/go/go.mod"), "utf8")]);
  } finally {
    fs.rmSync(out, { recursive: true, force: true });
  }
});
