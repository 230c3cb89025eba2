#!/usr/bin/env bash
# Writes the Go SDK (sdk/go/storageuser) and the Python SDK (sdk/python) from the plugin's schema
# (provider/plugin/schema.ts, as built into dist/ by `npm run build`) with the generator of this
# directory; commit the result. test/e2e/sdks.test.ts makes the same from the plugin's GetSchema.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
gen=$(bash "$here/build.sh")
schema=$(mktemp)
trap 'rm -f "$schema"' EXIT
node -e 'process.stdout.write(JSON.stringify(require(process.argv[1]).schema, null, 2))' "$root/dist/provider/plugin/schema.js" > "$schema"
# Every file in these directories is generated: clear them, so a file the schema no longer yields
# does not linger (sdk/go's go.mod and go.sum are the module's own, outside storageuser/).
for sdk in go:sdk/go/storageuser python:sdk/python; do
  out="$root/${sdk#*:}"
  rm -rf "$out" && mkdir -p "$out"
  "$gen" "${sdk%%:*}" "$schema" "$out" > /dev/null
done
