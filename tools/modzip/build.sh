#!/usr/bin/env bash
# Makes modzip (main.go) available and prints the path of its executable. Cached outside the
# clone like the SDK generator (tools/sdkgen/build.sh), keyed by the hash of go.mod, go.sum and
# main.go, so an edit rebuilds it. Cold: a few seconds once golang.org/x/mod is downloaded.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
key=$(cat "$here/go.mod" "$here/go.sum" "$here/main.go" | sha256sum | cut -c1-16)
cache=${PULUMI_CLI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pulumi-storage-user}/modzip-$key
if [ -x "$cache/modzip" ]; then
  echo "$cache/modzip"; exit 0
fi
echo "building modzip into $cache" >&2
mkdir -p "$cache"
(cd "$here" && go build -trimpath -ldflags "-s -w" -o "$cache/modzip.tmp.$$" .)
mv "$cache/modzip.tmp.$$" "$cache/modzip"
echo "$cache/modzip"
