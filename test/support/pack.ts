// `npm pack` as a release runs it, hooks included (prepack builds dist/ and takes `prepare` out
// of package.json, postpack puts package.json back: scripts/pack-manifest.cjs), in a copy of the
// checkout: the hooks rewrite package.json and dist/, which other test files read and run at the
// same time (the language host stand-in runs from dist/), and the repository stays untouched.
import { execFileSync, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { repoRoot } from "../../scripts/toolchain";

/** Packs a copy of the checkout made in `dir`/checkout into `dir`: the tarball's path and the copy. */
export function packWithHooks(dir: string): { tarball: string; checkout: string } {
  const checkout = path.join(dir, "checkout");
  // The files git tracks or would track: uncommitted changes and new files included.
  const listed = spawnSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], {
    cwd: repoRoot,
    encoding: "utf8",
  });
  if (listed.status === 0) {
    for (const f of listed.stdout.split("\0").filter(Boolean)) {
      const from = path.join(repoRoot, f);
      if (!fs.existsSync(from)) continue; // deleted, not yet committed
      fs.mkdirSync(path.dirname(path.join(checkout, f)), { recursive: true });
      fs.copyFileSync(from, path.join(checkout, f));
    }
  } else {
    const skip = new Set(["node_modules", "dist", ".git"].map((d) => path.join(repoRoot, d)));
    fs.cpSync(repoRoot, checkout, { recursive: true, filter: (f) => !skip.has(f) });
  }
  fs.symlinkSync(fs.realpathSync(path.join(repoRoot, "node_modules")), path.join(checkout, "node_modules"));
  const [packed] = JSON.parse(
    execFileSync("npm", ["pack", "--json", "--pack-destination", dir], {
      cwd: checkout,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, npm_config_loglevel: "error" },
    }),
  );
  return { tarball: path.join(dir, packed.filename), checkout };
}
