#!/usr/bin/env bash
# Writes the Go SDK (sdk/go/storageuser) and the Python SDK (sdk/python) from the plugin's schema
# (provider/plugin/schema.ts, as built into dist/ by `npm run build`) with the generator of this
# directory; commit the result. test/e2e/sdks.test.ts makes the same from the plugin's GetSchema.
# `--plugin-url <url>`: the SDKs of a release whose plugin the engine downloads from <url> (the schema's
# pluginDownloadURL, which the SDKs' pulumi-plugin.json carry as `server`); scripts/artifacts.ts runs it so in its
# copy of the tree. The committed SDKs carry no URL (docs/development.md "Releases").
set -euo pipefail
url=""
if [ "${1:-}" = "--plugin-url" ]; then url=$2; fi
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
gen=$(bash "$here/build.sh")
schema=$(mktemp)
trap 'rm -f "$schema"' EXIT
node -e 'const [file, url] = process.argv.slice(1); const { schema } = require(file);
process.stdout.write(JSON.stringify(url ? { ...schema, pluginDownloadURL: url } : schema, null, 2))' "$root/dist/provider/plugin/schema.js" "$url" > "$schema"
# Every file in these directories is generated: clear them, so a file the schema no longer yields
# does not linger (sdk/go's go.mod and go.sum are the module's own, outside storageuser/).
for sdk in go:sdk/go/storageuser python:sdk/python; do
  out="$root/${sdk#*:}"
  rm -rf "$out" && mkdir -p "$out"
  "$gen" "${sdk%%:*}" "$schema" "$out" > /dev/null
done
