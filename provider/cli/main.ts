#!/usr/bin/env node
// `pulumi-storage-user`, the package's bin. Two commands:
//   pulumi stack export | npx pulumi-storage-user pending [--dealt-with list] [- | files...]
// lists the StorageUser creates force-stopped runs left pending (provider/pending.ts), once each:
// user name, service, URN, status (tab-separated). Exit 1 when any is unaccounted (scripts
// stop), 0 when none, 2 when an input cannot be read.
//   npx pulumi-storage-user review preview.json
// the CI review of `pulumi preview --json` (cli/review.ts). --help prints what both do. Nothing
// here loads the Pulumi SDK.
import * as fs from "node:fs";
import { StorageUserError } from "../errors";
import { formatPendingStorageUser, pendingStorageUsers } from "../pending";
import { review } from "./review";

const USAGE =
  "usage: pulumi stack export | pulumi-storage-user pending [--dealt-with list.txt] [- | checkpoint-or-export.json ...]\n       pulumi-storage-user review [preview.json]";
const HELP = `${USAGE}

pending  lists the StorageUser creates a force-stopped \`pulumi up\` left pending: users that may
         exist on the service without being in the stack, once each (user name, service, URN,
         status, tab-separated). Reads \`pulumi stack export\` on standard input (\`-\`), and
         exported or checkpoint files (a file backend's .pulumi/stacks, history or backups).
         Status, against the newest input: \`unaccounted\`, \`in stack\` (the stack now
         holds a user of that name), or \`dealt with\` (named in --dealt-with, e.g. the list an
         earlier run printed, once worked through).
         Exit status: 1 when any is unaccounted, 0 when none, 2 when an input cannot be read.
         Run it before \`pulumi cancel\` or the next \`pulumi up\` (docs/failure-modes.md).

review   the CI review of \`pulumi preview --json\` (or \`pulumi destroy --preview-only --json\`)
         output, on standard input or as a file: every StorageUser the change removes or
         replaces stays on the service with working credentials; each becomes a GitHub Actions
         annotation (resource, id, userName, service), and the job fails unless the pull
         request has the label in ALLOW_LABEL (default allow-storage-user-removal).
         Exit status: 1 when one is removed or replaced without the label, 0 otherwise, 2 when
         the preview cannot be read (docs/ci.md).
`;
const isHelp = (arg: string | undefined) => arg === "--help" || arg === "-h" || arg === "help";

function unreadable(message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(2);
}

function readInput(file: string): string {
  try {
    return fs.readFileSync(file === "-" ? 0 : file, "utf8");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? "error";
    unreadable(
      new StorageUserError("PENDING_INPUT_UNREADABLE", {
        problem: "cannotRead",
        input: file === "-" ? "standard input" : file,
        errno: code,
      }).message,
    );
  }
}

function parseInput(file: string): unknown {
  const text = readInput(file);
  try {
    return JSON.parse(text);
  } catch {
    // Not the parser's message: it may quote the input.
    const details = {
      problem: "notJson",
      input: file === "-" ? "standard input" : file,
      bytes: Buffer.byteLength(text),
      blank: text.trim() === "",
    } as const;
    unreadable(new StorageUserError("PENDING_INPUT_UNREADABLE", details).message);
  }
}

function pending(args: string[]): number {
  let dealtWith: string[] = [];
  const files: string[] = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === "--dealt-with") {
      const list = args[++i];
      if (list === undefined) unreadable(`[USAGE] --dealt-with needs a file: ${USAGE}`);
      dealtWith = readInput(list).split("\n");
    } else files.push(args[i]);
  }
  // Standard input when no file is named; on a terminal nothing is piped in, so say how instead of waiting.
  if (files.length === 0) {
    if (process.stdin.isTTY) unreadable(`[USAGE] nothing piped in: ${USAGE}`);
    files.push("-");
  }
  let found;
  try {
    found = pendingStorageUsers(files.map(parseInput), { dealtWith });
  } catch (err) {
    if (err instanceof StorageUserError && err.code === "PENDING_INPUT_UNREADABLE") unreadable(err.message);
    throw err;
  }
  for (const p of found) process.stdout.write(`${formatPendingStorageUser(p)}\n`);
  const open = found.filter((p) => p.status === "unaccounted").length;
  if (found.length > 0) {
    process.stderr.write(
      `${found.length} StorageUser create(s) were in flight when a run stopped; ${open} unaccounted: ` +
        `${open > 0 ? "each may exist on the service without being in the stack. Keep this list; " : ""}see docs/failure-modes.md "After a force-stop".\n`,
    );
  }
  return open > 0 ? 1 : 0;
}

const [command, ...rest] = process.argv.slice(2);
if (isHelp(command) || ((command === "pending" || command === "review") && isHelp(rest[0]))) process.stdout.write(HELP);
else if (command === "pending") process.exitCode = pending(rest);
else if (command === "review" && rest.length <= 1) process.exitCode = review(rest[0] === "-" ? undefined : rest[0]);
else unreadable(`[USAGE] unknown command or arguments: ${USAGE}`);
