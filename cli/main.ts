#!/usr/bin/env node
// `pulumi-storage-user`, the package's bin: `pending` and `review` (HELP below); it loads no Pulumi SDK.
import * as fs from "node:fs";
import { parseArgs } from "node:util";
import { ErrorArgs, StorageUserError } from "../provider/messages";
import { formatPendingStorageUser, pendingStorageUsers } from "../provider/core/pending";
import { review } from "./review";

const USAGE =
  "usage: pulumi stack export | pulumi-storage-user pending [--dealt-with list.txt] [- | checkpoint-or-export.json ...]\n       pulumi-storage-user review [preview.json]";
const HELP = `${USAGE}

pending  lists the StorageUser creates a force-stopped \`pulumi up\` left pending: users that may exist on
         the service without being in the stack, once each (user name, service, URN, status; tab-separated),
         from \`pulumi stack export\` on standard input or exported and checkpoint files. Status, against
         the newest input: unaccounted, in stack, or dealt with (named in --dealt-with, e.g. an earlier
         run's output). Exit 1 when any is unaccounted, 0 when none, 2 when an input cannot be read.
review   the CI review of \`pulumi preview --json\` output (a file, or standard input): each StorageUser
         the change removes or replaces stays on the service with working credentials, and becomes a
         GitHub Actions annotation; the job fails unless the pull request has the label in ALLOW_LABEL
         (default allow-storage-user-removal). Exit 1 then, 0 otherwise, 2 for an unreadable preview.
`;

function unreadable(...error: ErrorArgs): never {
  process.stderr.write(`${new StorageUserError(...error).message}\n`);
  process.exit(2);
}
function usage(what: string): never {
  unreadable("USAGE", { what, usage: USAGE });
}

function read(file: string): string {
  const input = file === "-" ? "standard input" : file;
  try {
    return fs.readFileSync(file === "-" ? 0 : file, "utf8");
  } catch (err) {
    const errno = (err as NodeJS.ErrnoException).code ?? "error";
    unreadable("PENDING_INPUT_UNREADABLE", { problem: "cannotRead", input, errno });
  }
}

function pending(files: string[], dealtWithFile?: string): number {
  if (files.length === 0 && process.stdin.isTTY) usage("nothing piped in");
  const inputs = (files.length ? files : ["-"]).map((file) => {
    const text = read(file);
    try {
      return JSON.parse(text) as unknown;
    } catch {
      // Not the parser's message: it may quote the input.
      const [input, bytes] = [file === "-" ? "standard input" : file, text.trim() ? Buffer.byteLength(text) : 0];
      unreadable("PENDING_INPUT_UNREADABLE", { problem: "notJson", input, bytes });
    }
  });
  const dealtWith = dealtWithFile === undefined ? [] : read(dealtWithFile).split("\n");
  let found;
  try {
    found = pendingStorageUsers(inputs, { dealtWith });
  } catch (err) {
    if (err instanceof StorageUserError) unreadable(err.code, err.details as never); // its own message again
    throw err;
  }
  for (const p of found) process.stdout.write(`${formatPendingStorageUser(p)}\n`);
  const open = found.filter((p) => p.status === "unaccounted").length;
  if (found.length > 0)
    process.stderr.write(
      `${found.length} StorageUser create(s) were in flight when a run stopped; ${open} unaccounted: ` +
        `${open > 0 ? "each may exist on the service without being in the stack. Keep this list; " : ""}see docs/failure-modes.md "After a force-stop".\n`,
    );
  return open > 0 ? 1 : 0;
}

let parsed;
try {
  parsed = parseArgs({
    allowPositionals: true,
    options: { "dealt-with": { type: "string" }, help: { type: "boolean", short: "h" } },
  });
} catch (err) {
  usage((err as Error).message);
}
const [command, ...rest] = parsed.positionals;
if (parsed.values.help || command === "help") process.stdout.write(HELP);
else if (command === "pending") process.exitCode = pending(rest, parsed.values["dealt-with"]);
else if (command === "review" && rest.length <= 1 && !parsed.values["dealt-with"])
  process.exitCode = review(rest[0] === "-" ? undefined : rest[0]);
else usage("unknown command or arguments");
