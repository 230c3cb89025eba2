#!/usr/bin/env bash
# Makes the pinned Pulumi CLI available and prints the directory that holds it.
#
# Order: a `pulumi` already on PATH at the pinned version, then the cache outside
# the clone, then a build from the Go module proxy (cold: see README for timing).
# The CLI's Go module cannot be `go install`ed (pkg/go.mod has a local replace),
# so this small tools module requires it and builds the main package.
set -euo pipefail

PULUMI_VERSION=v3.250.0
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cache=${PULUMI_CLI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pulumi-storage-user}/pulumi-$PULUMI_VERSION

has_version() { [ -x "$1" ] && [ "$("$1" version 2>/dev/null)" = "$PULUMI_VERSION" ]; }

if onpath=$(command -v pulumi 2>/dev/null) && has_version "$onpath"; then
  dirname "$onpath"; exit 0
fi
if has_version "$cache/pulumi"; then
  echo "$cache"; exit 0
fi

echo "building pulumi $PULUMI_VERSION into $cache (cold build takes several minutes)" >&2
mkdir -p "$cache"
start=$(date +%s)
(
  cd "$here"
  go build -trimpath \
    -ldflags "-s -w -X github.com/pulumi/pulumi/sdk/v3/go/common/version.Version=$PULUMI_VERSION" \
    -o "$cache/pulumi.tmp.$$" github.com/pulumi/pulumi/pkg/v3/cmd/pulumi
)
mv "$cache/pulumi.tmp.$$" "$cache/pulumi"
echo "built pulumi $PULUMI_VERSION in $(( $(date +%s) - start ))s" >&2
echo "$cache"
