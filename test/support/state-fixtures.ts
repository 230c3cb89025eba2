// State written by an earlier release (test/programs/upgrade/state-*.json), imported into a
// test stack: the placeholders __STACK__ and __BASEURL__ filled in, and the secrets, stored in
// plain text, encrypted on import with this stack's passphrase.
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { TestStack } from "../../scripts/stack";

/** Imports the fixture and returns the state as imported (secrets in plain text). */
export async function importStateFixture(
  stack: TestStack,
  fixture: string,
  baseUrl: string,
): Promise<{ deployment: { resources: Array<Record<string, any>> } }> {
  const text = fs.readFileSync(fixture, "utf8");
  const state = JSON.parse(text.split("__STACK__").join(stack.stackName).split("__BASEURL__").join(baseUrl));
  const salt = /^encryptionsalt: (\S+)$/m.exec(
    fs.readFileSync(path.join(stack.programDir, `Pulumi.${stack.stackName}.yaml`), "utf8"),
  )![1];
  state.deployment.secrets_providers = { type: "passphrase", state: { salt } };
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "psu-upgrade-"));
  try {
    fs.writeFileSync(path.join(dir, "state.json"), JSON.stringify(state));
    await stack.must(["stack", "import", "--file", path.join(dir, "state.json")]);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  return state;
}
