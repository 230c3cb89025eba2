#!/usr/bin/env bash
# Makes the SDK generator (main.go) available and prints the path of its executable.
# Cached outside the clone like the Pulumi CLI (tools/pulumi-cli/build.sh), keyed by the hash of
# this directory's go.mod, go.sum, main.go and testing.py, so an edit rebuilds it. Cold: about 100 s.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
key=$(cat "$here/go.mod" "$here/go.sum" "$here/main.go" "$here/testing.py" | sha256sum | cut -c1-16)
cache=${PULUMI_CLI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pulumi-storage-user}/sdkgen-$key
if [ -x "$cache/sdkgen" ]; then
  echo "$cache/sdkgen"; exit 0
fi
echo "building the SDK generator into $cache" >&2
mkdir -p "$cache"
start=$(date +%s)
(cd "$here" && go build -trimpath -ldflags "-s -w" -o "$cache/sdkgen.tmp.$$" .)
mv "$cache/sdkgen.tmp.$$" "$cache/sdkgen"
echo "built the SDK generator in $(( $(date +%s) - start ))s" >&2
echo "$cache/sdkgen"
