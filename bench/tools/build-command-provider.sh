#!/usr/bin/env bash
# Builds pulumi-resource-command, the Go plugin behind npm @pulumi/command (peer (b) of the
# bench), from the Go module proxy, the way tools/pulumi-cli builds the CLI: a throwaway
# module outside the clone requires the provider module and builds its main package. The
# build is cached in ~/.cache/pulumi-storage-user/pulumi-command-<version>. Prints the
# directory holding the binary; exits non-zero with the Go tool's own error when the module
# cannot be had (on this workplace the proxy refuses github.com/pulumi/pulumi-command/provider).
# If the module's go.mod carries replace directives, they must be restated here (see
# tools/pulumi-cli/go.mod for the same issue with the CLI).
set -euo pipefail

VERSION=${PULUMI_COMMAND_VERSION:-v1.2.1} # matches npm @pulumi/command 1.2.1 (bench/programs/peer-command)
MODULE=github.com/pulumi/pulumi-command/provider
cache=${PULUMI_CLI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pulumi-storage-user}/pulumi-command-$VERSION

if [ -x "$cache/pulumi-resource-command" ]; then
  echo "$cache"; exit 0
fi
mkdir -p "$cache/src"
cd "$cache/src"
[ -f go.mod ] || go mod init psu-bench/command-provider >/dev/null 2>&1
echo "+ go get $MODULE@$VERSION" >&2
go get "$MODULE@$VERSION"
echo "+ go build $MODULE/cmd/pulumi-resource-command" >&2
go build -trimpath -ldflags "-s -w -X $MODULE/pkg/version.Version=$VERSION" \
  -o "$cache/pulumi-resource-command.tmp.$$" "$MODULE/cmd/pulumi-resource-command"
mv "$cache/pulumi-resource-command.tmp.$$" "$cache/pulumi-resource-command"
echo "$cache"
