#!/usr/bin/env bash
# Makes the Go SDK generator (main.go) available and prints the path of its executable.
# Cached outside the clone like the Pulumi CLI (tools/pulumi-cli/build.sh), keyed by the hash of
# this directory's go.mod, go.sum and main.go, so an edit rebuilds it. Cold: about 100 s.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
key=$(cat "$here/go.mod" "$here/go.sum" "$here/main.go" | sha256sum | cut -c1-16)
cache=${PULUMI_CLI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pulumi-storage-user}/go-sdkgen-$key
if [ -x "$cache/go-sdkgen" ]; then
  echo "$cache/go-sdkgen"; exit 0
fi
echo "building the Go SDK generator into $cache" >&2
mkdir -p "$cache"
start=$(date +%s)
(cd "$here" && go build -trimpath -ldflags "-s -w" -o "$cache/go-sdkgen.tmp.$$" .)
mv "$cache/go-sdkgen.tmp.$$" "$cache/go-sdkgen"
echo "built the Go SDK generator in $(( $(date +%s) - start ))s" >&2
echo "$cache/go-sdkgen"
