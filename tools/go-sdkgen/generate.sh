#!/usr/bin/env bash
# Writes the Go SDK (sdk/go/storageuser) from the plugin's schema (provider/plugin/schema.ts, as
# built into dist/ by `npm run build`) with the generator of this directory.
#
#   generate.sh            regenerate sdk/go/storageuser in the clone (commit the result)
#   generate.sh <dir>      write into <dir> instead (test/e2e/go.test.ts makes the same from the plugin's GetSchema)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${1:-$root/sdk/go/storageuser}
gen=$(bash "$here/build.sh")
schema=$(mktemp)
trap 'rm -f "$schema"' EXIT
node -e 'process.stdout.write(JSON.stringify(require(process.argv[1]).schema, null, 2))' "$root/dist/provider/plugin/schema.js" > "$schema"
# Every file in the package directory is generated: clear it, so a file the schema no longer
# yields does not linger.
rm -rf "$out"
mkdir -p "$out"
"$gen" "$schema" "$out" > /dev/null
