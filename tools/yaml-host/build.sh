#!/usr/bin/env bash
# Makes the real Pulumi YAML language host (pulumi-language-yaml) available and prints the
# directory that holds it. The CLI finds it on PATH (the test and docs/yaml.md put this
# directory there). Cached outside the clone, so a warm run is a no-op.
#
# v1.25.0 is the newest version the Go module proxy serves here (it also serves v1.11.1, too old
# for CLI 3.250's packages: entries). Cold build: about 60 s on 2 cores.
set -euo pipefail

YAML_VERSION=v1.25.0
cache=${PULUMI_CLI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pulumi-storage-user}/pulumi-language-yaml-$YAML_VERSION

if [ -x "$cache/pulumi-language-yaml" ]; then
  echo "$cache"; exit 0
fi

echo "building pulumi-language-yaml $YAML_VERSION into $cache (cold build takes about a minute)" >&2
start=$(date +%s)
tmp="$cache.tmp.$$"
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT
# GOFLAGS=-mod=mod: go install pkg@version ignores any go.mod around it; set explicitly so a
# caller's GOFLAGS cannot change that.
GOBIN="$tmp" GOFLAGS=-mod=mod go install -trimpath -ldflags "-s -w" \
  github.com/pulumi/pulumi-yaml/cmd/pulumi-language-yaml@$YAML_VERSION
mkdir -p "$cache"
mv "$tmp/pulumi-language-yaml" "$cache/pulumi-language-yaml"
echo "built pulumi-language-yaml $YAML_VERSION in $(( $(date +%s) - start ))s" >&2
echo "$cache"
