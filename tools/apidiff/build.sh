#!/usr/bin/env bash
# Makes apidiff (golang.org/x/exp/cmd/apidiff at the version go.mod requires) available and prints
# the path of its executable. Cached outside the clone like modzip (tools/modzip/build.sh), keyed by
# the hash of go.mod and go.sum, so a new pin rebuilds it. Cold: a few seconds once its modules
# (golang.org/x/exp, x/tools, x/mod, x/sync) are downloaded.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
key=$(cat "$here/go.mod" "$here/go.sum" | sha256sum | cut -c1-16)
cache=${PULUMI_CLI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pulumi-storage-user}/apidiff-$key
if [ -x "$cache/apidiff" ]; then
  echo "$cache/apidiff"; exit 0
fi
echo "building apidiff into $cache" >&2
mkdir -p "$cache"
(cd "$here" && go build -trimpath -ldflags "-s -w" -o "$cache/apidiff.tmp.$$" golang.org/x/exp/cmd/apidiff)
mv "$cache/apidiff.tmp.$$" "$cache/apidiff"
echo "$cache/apidiff"
