/**
 * The version a build of the package's artifacts carries (docs/development.md "Releases"). Only the
 * commit that releases X.Y.Z (`Release X.Y.Z`: tagged vX.Y.Z, or recorded in releases.json), with
 * no uncommitted change to a tracked file, builds as X.Y.Z. Any other commit builds as a
 * pre-release of the next patch version that names the commit, so no two commits' builds share a
 * version, each ecosystem spelling it its own way:
 *
 *   semver (npm)      0.6.1-dev.5+1a2b3c4d5e6f            5 commits after 0.6.0's release commit
 *   Python (PEP 440)  0.6.1.dev5+1a2b3c4d5e6f
 *   Go                v0.6.1-0.20261128140000-1a2b3c4d5e6f  the pseudo-version `go` gives that commit
 *
 * Uncommitted changes add `.dirty` (Go: a `-dev.N.dirty.g<sha>` pre-release, since a pseudo-version
 * names a commit only): such a build is a trial, and two of them may share a version.
 */
import { execFileSync } from "node:child_process";
import { repoRoot } from "./toolchain";

export type BuildVersion = {
  /** Whether the commit is a release's own: the versions are that release's. */
  release: boolean;
  /** npm's (package.json, the tarball's name), SemVer 2.0. */
  semver: string;
  /** The Python package's (pyproject.toml, the wheel's and sdist's names), PEP 440. */
  python: string;
  /** The Go module's, with its `v`. */
  go: string;
  commit: string;
  dirty: boolean;
};

type Version = [number, number, number, string | undefined];
const parse = (v: string): Version | undefined => {
  const m = /^(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$/.exec(v);
  return m ? [Number(m[1]), Number(m[2]), Number(m[3]), m[4]] : undefined;
};
/** SemVer precedence of two versions, build metadata ignored: negative, 0 or positive. */
export function compareVersions(a: string, b: string): number {
  const [x, y] = [parse(a), parse(b)];
  if (!x || !y) throw new Error(`not a version: ${x ? b : a}`);
  for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return (x[i] as number) - (y[i] as number);
  if (x[3] === y[3]) return 0;
  if (x[3] === undefined || y[3] === undefined) return x[3] === undefined ? 1 : -1;
  const [p, q] = [x[3].split("."), y[3].split(".")];
  for (let i = 0; i < Math.min(p.length, q.length); i++) {
    if (p[i] === q[i]) continue;
    const [m, n] = [/^\d+$/.test(p[i]), /^\d+$/.test(q[i])];
    if (m && n) return Number(p[i]) - Number(q[i]);
    if (m !== n) return m ? -1 : 1;
    return p[i] < q[i] ? -1 : 1;
  }
  return p.length - q.length;
}

/** The build version of the commit checked out in `dir`, from its git history, tags and committed files. */
export function buildVersion(dir: string = repoRoot): BuildVersion {
  const git = (...args: string[]) =>
    execFileSync("git", args, { cwd: dir, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
  const ok = (...args: string[]) => {
    try {
      git(...args);
      return true;
    } catch {
      return false;
    }
  };
  const commit = git("rev-parse", "HEAD");
  // The committed files, not the working tree's: the version names a commit.
  const committed = (file: string) => JSON.parse(git("show", `HEAD:${file}`)) as unknown;
  const pkgVersion = (committed("package.json") as { version: string }).version;
  const releases = committed("releases.json") as Record<string, { commit: string }>;
  const dirty = git("status", "--porcelain", "--untracked-files=no") !== "";
  const tagged = git("tag", "--points-at", "HEAD")
    .split("\n")
    .filter((t) => /^v\d+\.\d+\.\d+$/.test(t))
    .map((t) => t.slice(1));
  const releasesHere = tagged.includes(pkgVersion) || releases[pkgVersion]?.commit === commit;
  if (releasesHere && !dirty)
    return { release: true, semver: pkgVersion, python: pkgVersion, go: `v${pkgVersion}`, commit, dirty };

  // The last release this commit descends from, and the next patch version after it (or the
  // pre-release's own version, when package.json names one of a later version).
  // Releases are those releases.json records and those tagged vX.Y.Z (a release commit's own file cannot record it).
  const known: Record<string, { commit: string }> = { ...releases };
  for (const tag of git("tag", "--list", "v*").split("\n"))
    if (/^v\d+\.\d+\.\d+$/.test(tag)) known[tag.slice(1)] ??= { commit: git("rev-list", "-n", "1", tag) };
  const ancestors = Object.entries(known)
    .filter(([v, r]) => parse(v) && !parse(v)![3] && ok("merge-base", "--is-ancestor", r.commit, commit))
    .sort(([a], [b]) => compareVersions(a, b));
  const [last, at] = ancestors.at(-1) ?? [undefined, undefined];
  const current = parse(pkgVersion);
  if (!current) throw new Error(`package.json's version ${pkgVersion} is not a semantic version`);
  let next = current[3] !== undefined ? current.slice(0, 3).join(".") : `${current[0]}.${current[1]}.${current[2] + 1}`;
  if (last && compareVersions(next, last) <= 0) {
    const l = parse(last)!;
    next = `${l[0]}.${l[1]}.${l[2] + 1}`;
  }
  const n = Number(at ? git("rev-list", "--count", `${at.commit}..HEAD`) : git("rev-list", "--count", "HEAD"));
  const sha = commit.slice(0, 12);
  const mark = dirty ? ".dirty" : "";
  // Go's pseudo-version: the commit's time in UTC, yyyymmddhhmmss, then 12 hex digits of its hash.
  const time = new Date(git("log", "-1", "--format=%cI", "HEAD"))
    .toISOString()
    .replace(/\.\d+Z$/, "")
    .replace(/[-:T]/g, "");
  return {
    release: false,
    semver: `${next}-dev.${n}+${sha}${mark}`,
    python: `${next}.dev${n}+${sha}${mark}`,
    go: dirty ? `v${next}-dev.${n}.dirty.g${sha}` : `v${next}-0.${time}-${sha}`,
    commit,
    dirty,
  };
}

if (require.main === module) console.log(JSON.stringify(buildVersion(), null, 2));
