// The tenants service of examples/go and examples/python, one contract in two languages: what the
// second block of either README (onboard acme globex, onboard acme, rotate acme, offboard) must do.
import * as fs from "node:fs";
import * as path from "node:path";
import { expect } from "vitest";
import { ApiServer } from "../../server/api-server";
import { filesUnder, hits, secretsOf, withEncodings } from "./secrets";

/** A `pulumi` in `dir` that appends each command line it is given to `dir/argv.log`, then runs the one in `cliDir`. */
export function argvLoggingCli(dir: string, cliDir: string): string {
  fs.mkdirSync(dir, { recursive: true });
  const log = JSON.stringify(path.join(dir, "argv.log"));
  const script = `#!/bin/sh\nprintf '%s\\n' "$*" >> ${log}\nexec ${JSON.stringify(path.join(cliDir, "pulumi"))} "$@"\n`;
  fs.writeFileSync(path.join(dir, "pulumi"), script, { mode: 0o755 });
  return dir;
}

/**
 * `example` is the example's directory after the run, `home` the PULUMI_HOME, `output` what the run printed, `cli`
 * the directory of its {@link argvLoggingCli}.
 */
export function expectTenantsRun(
  api: ApiServer,
  run: { example: string; home: string; output: string; token: string; cli: string },
) {
  // 2 onboarded, 0 for the second onboard, 1 for the rotation: the API only creates.
  expect(api.requests.map((q) => [q.method, q.authorized])).toEqual(Array(3).fill(["POST", true]));
  const [acme, globex, rotated] = api.users;
  expect([acme.Name, globex.Name, rotated.Name]).toEqual(["acme-storage", "globex-storage", "acme-storage-r1"]);
  // What the caller was handed: each tenant's env, on every onboard and after the rotation.
  const lines = fs.readFileSync(path.join(run.example, "handed-over.jsonl"), "utf8").trim().split("\n");
  const handed = lines.map((l) => JSON.parse(l));
  expect(handed.map((h) => [h.tenant, h.userId])).toEqual([
    ["acme", acme.Id],
    ["globex", globex.Id],
    ["acme", acme.Id],
    ["acme", rotated.Id],
  ]);
  expect(handed[0].env.AWS_SECRET_ACCESS_KEY).toBe(acme.S3Connection.SecretKey);
  expect(handed[1].env.AWS_ACCESS_KEY_ID).toBe(globex.S3Connection.AccessKey);
  expect(handed[2].env).toEqual(handed[0].env);
  expect(handed[3].env.AWS_SECRET_ACCESS_KEY).toBe(rotated.S3Connection.SecretKey);
  for (const u of [acme, globex, rotated])
    expect(run.output).toContain(`[USER_LEFT_STACK] StorageUser '${u.Name}' (id ${u.Id}, on ${new URL(api.url).href})`);
  // The token and every credential: nowhere in state, history, backups, the stacks' config, PULUMI_HOME or the
  // service's output (the hand-over went to the file).
  const needles = withEncodings([["the API token", run.token], ...api.users.flatMap(secretsOf)]);
  const kept = [
    ...filesUnder(path.join(run.example, "state")),
    ...filesUnder(path.join(run.example, "workspace")),
    ...filesUnder(run.home),
  ];
  expect(kept.length).toBeGreaterThan(5);
  // The command lines the service ran: the token reached the CLI, but not as an argument.
  const argv = fs.readFileSync(path.join(run.cli, "argv.log"), "utf8");
  expect(argv).toContain("config set --secret --stack tenant-acme storage-user:accessToken\n");
  const said: [string, string][] = [
    ["the service's output", run.output],
    ["the pulumi command lines", argv],
  ];
  expect(hits([...kept, ...said], needles)).toEqual([]);
  expect(fs.readFileSync(path.join(run.example, "workspace", "Pulumi.tenant-acme.yaml"), "utf8")).toMatch(
    /storage-user:accessToken:\n\s+secure:/,
  );
}
