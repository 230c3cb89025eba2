// The install matrix's rows (test/e2e/install-matrix.test.ts runs them) and the README's table of
// them. `npm run matrix` runs the matrix and writes the table into README.md: on purpose, never
// as a side effect of `npm test`, whose run only checks that the committed table is its own.
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { pins, repoRoot } from "./toolchain";

export interface Cell {
  name: string;
  program: "cjs" | "ts-strict" | "esm";
  pm: "npm" | "pnpm" | "yarn";
  sdk: string;
  sdkWhy: string;
  node: string;
  /** Pulumi CLI: tools/toolchain/versions.json `cli` (pinned) or `cliNewest`. */
  cli: string;
  from: "tarball" | "git";
}

/** What a row's run found, as the table shows it. */
export interface CellResult {
  providerBytes: number;
  nodeVersion: string;
  sdkInstalled: string;
  cliReported: string;
}

const pkg = JSON.parse(fs.readFileSync(path.join(repoRoot, "package.json"), "utf8")) as Record<
  "peerDependencies" | "devDependencies",
  Record<string, string>
>;
const peerLowest = pkg.peerDependencies["@pulumi/pulumi"].replace(/^\^/, "");
const sdkNewest = pins.sdkNewest;

export const cells: Cell[] = [
  {
    name: "cjs-npm-lowest",
    program: "cjs",
    pm: "npm",
    sdk: peerLowest,
    sdkWhy: "lowest of the peer range",
    node: "22",
    cli: pins.cli,
    from: "tarball",
  },
  {
    name: "ts-yarn-newest",
    program: "ts-strict",
    pm: "yarn",
    sdk: sdkNewest,
    sdkWhy: "newest for the lowest supported Node, which is also the newest on the registry",
    node: "22",
    cli: pins.cliNewest,
    from: "tarball",
  },
  {
    name: "esm-pnpm-newest",
    program: "esm",
    pm: "pnpm",
    sdk: sdkNewest,
    sdkWhy: "newest on the registry",
    node: "26",
    cli: pins.cliNewest,
    from: "tarball",
  },
  {
    name: "ts-npm-git",
    program: "ts-strict",
    pm: "npm",
    sdk: pkg.devDependencies["@pulumi/pulumi"],
    sdkWhy: "the version the suite pins",
    node: "24",
    cli: pins.cli,
    from: "git",
  },
];

const BEGIN =
  "<!-- install-matrix: written by `npm run matrix` from its run; test/e2e/install-matrix.test.ts checks it -->";
const END = "<!-- /install-matrix -->";
const readmePath = path.join(repoRoot, "README.md");

/** The table's rows for a run's results, one per cell, in the cells' order. */
export function matrixRows(results: Map<string, CellResult>): string[] {
  const program = {
    cjs: "JavaScript (CommonJS)",
    "ts-strict": "TypeScript, `strict`, type-checked",
    esm: 'ESM (`"type": "module"`, `module: nodenext`)',
  };
  return cells.map((c) => {
    const r = results.get(c.name);
    if (!r) throw new Error(`the install matrix has no result for ${c.name}`);
    const cli = `${r.cliReported} (${c.cli === pins.cli ? "pinned" : "newest on the Go module proxy"})`;
    return `| ${program[c.program]} | ${c.pm} | ${r.sdkInstalled} (${c.sdkWhy}) | ${r.nodeVersion} | ${cli} | ${c.from === "git" ? "git URL" : "packed tarball"} | ${r.providerBytes} B | pass |`;
  });
}

function matrixTable(results: Map<string, CellResult>): string {
  return [
    BEGIN,
    "| Program | Installed with | `@pulumi/pulumi` | Node.js | Pulumi CLI | Package from | `__provider` in state | preview / up / 2nd up / secret audit |",
    "|---|---|---|---|---|---|---|---|",
    ...matrixRows(results),
    END,
  ].join("\n");
}

/** The rows of the table README.md holds now. */
export function readmeRows(readme: string = fs.readFileSync(readmePath, "utf8")): string[] {
  const start = readme.indexOf(BEGIN);
  const end = readme.indexOf(END);
  if (start < 0 || end < 0) throw new Error("README.md has no install-matrix markers");
  return readme
    .slice(start + BEGIN.length, end)
    .split("\n")
    .filter((l) => l.startsWith("| ") && !l.startsWith("| Program |"));
}

/** README.md with its table replaced by this run's. */
export function withMatrixTable(readme: string, results: Map<string, CellResult>): string {
  readmeRows(readme); // the markers are there
  return readme.slice(0, readme.indexOf(BEGIN)) + matrixTable(results) + readme.slice(readme.indexOf(END) + END.length);
}

/** Where test/e2e/install-matrix.test.ts writes its results when `npm run matrix` runs it. */
export const resultsFileVariable = "PULUMI_STORAGE_USER_MATRIX_RESULTS";

/** `npm run matrix`: runs the matrix (the pinned CLI's project), then writes its table into README.md. */
function main() {
  const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "psu-matrix-results-")), "results.json");
  const r = spawnSync("npx", ["vitest", "run", "--project", `cli ${pins.cli}`, "test/e2e/install-matrix.test.ts"], {
    cwd: repoRoot,
    stdio: "inherit",
    env: { ...process.env, [resultsFileVariable]: out },
  });
  if (!fs.existsSync(out)) {
    console.error(`install matrix: no results (vitest exited ${r.status}); README.md left as it is`);
    process.exit(1);
  }
  const results = new Map<string, CellResult>(
    Object.entries(JSON.parse(fs.readFileSync(out, "utf8")) as Record<string, CellResult>),
  );
  fs.rmSync(path.dirname(out), { recursive: true, force: true });
  const readme = fs.readFileSync(readmePath, "utf8");
  const updated = withMatrixTable(readme, results);
  if (updated === readme) {
    console.log("install matrix: README.md's table is this run's already");
    return;
  }
  fs.writeFileSync(readmePath, updated);
  console.log(
    `install matrix: README.md's table rewritten from this run (commit it):\n${matrixRows(results).join("\n")}`,
  );
}

if (require.main === module) main();
