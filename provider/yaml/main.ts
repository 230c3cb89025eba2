/** Entry of the package's provider plugin (bin/pulumi-resource-storage-user, yaml/package.json `main`). */
import { serve } from "./plugin";
serve().catch((err) => {
  console.error(err instanceof Error ? err.message : String(err));
  process.exit(1);
});
