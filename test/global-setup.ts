// Makes sure the pinned Pulumi CLI exists before any test runs (building it on a cold machine)
// and prints which binary the end-to-end tests use.
import { cliVersion, locateCli } from "../scripts/stack";

export default function setup() {
  const dir = locateCli();
  console.log(`pulumi CLI ${cliVersion()} at ${dir}/pulumi`);
}
