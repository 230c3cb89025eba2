// The single executable's entry (scripts/plugin-binary.ts): the bundled modules' list first, so the plugin's run-time
// reaches find them, then the plugin itself. Outside provider/: a build concern, not in the npm package.
import "./plugin-modules";
import { serve } from "../provider/plugin/server";

serve().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : String(err));
  process.exit(1);
});
