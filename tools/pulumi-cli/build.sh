#!/usr/bin/env bash
# Makes a Pulumi CLI available and prints the directory that holds it.
#
#   build.sh            the pinned CLI ("cli" in tools/toolchain/versions.json): the suite and the demo
#   build.sh newest     the newest the proxy serves ("cliNewest"), tested beside it
#   build.sh v3.274.1   that version
#
# Each version is a small tools module, tools/pulumi-cli/<version>/go.mod: the
# CLI's Go module cannot be `go install`ed (pkg/go.mod has a local replace), so
# the tools module requires it and builds the main package.
# Order: a `pulumi` already on PATH at that version, then the cache outside the
# clone, then a build from the Go module proxy (cold: several minutes).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
pin() { sed -n "s/^ *\"$1\": \"\(v[^\"]*\)\".*/\1/p" "$here/../toolchain/versions.json"; }
case "${1:-}" in
  "") PULUMI_VERSION=$(pin cli) ;;
  newest) PULUMI_VERSION=$(pin cliNewest) ;;
  *) PULUMI_VERSION=$1 ;;
esac
module=$here/$PULUMI_VERSION
if [ ! -f "$module/go.mod" ]; then
  echo "no tools module for pulumi $PULUMI_VERSION: add tools/pulumi-cli/$PULUMI_VERSION/go.mod" >&2
  exit 2
fi
cache=${PULUMI_CLI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pulumi-storage-user}/pulumi-$PULUMI_VERSION

has_version() { [ -x "$1" ] && [ "$("$1" version 2>/dev/null)" = "$PULUMI_VERSION" ]; }

if onpath=$(command -v pulumi 2>/dev/null) && has_version "$onpath"; then
  dirname "$onpath"; exit 0
fi
if has_version "$cache/pulumi"; then
  echo "$cache"; exit 0
fi

if ! command -v go >/dev/null; then
  echo "no pulumi $PULUMI_VERSION on PATH or in $cache, and no Go to build it: install Pulumi $PULUMI_VERSION or a later v3 (https://www.pulumi.com/docs/iac/download-install/), or Go (https://go.dev/dl/)" >&2
  exit 3
fi
echo "building pulumi $PULUMI_VERSION into $cache (cold build takes several minutes)" >&2
mkdir -p "$cache"
start=$(date +%s)
(
  cd "$module"
  go build -trimpath \
    -ldflags "-s -w -X github.com/pulumi/pulumi/sdk/v3/go/common/version.Version=$PULUMI_VERSION" \
    -o "$cache/pulumi.tmp.$$" github.com/pulumi/pulumi/pkg/v3/cmd/pulumi
)
mv "$cache/pulumi.tmp.$$" "$cache/pulumi"
echo "built pulumi $PULUMI_VERSION in $(( $(date +%s) - start ))s" >&2
echo "$cache"
