#!/usr/bin/env bash
# Makes the real S3 and FTP servers that the local API can provision users on, and prints
#   versitygw=<path of the versitygw binary>
#   ftp=<path of the FTP server binary>
# Both are cached outside the clone like the Pulumi CLI, so a warm run only checks they exist:
#   versitygw, pinned, `go install`ed from the Go module proxy (cold: see docs/development.md for timing);
#   tools/ftp-server, this repo's small main over ftpserverlib, keyed by a hash of its sources.
# Why these two: docs/real-servers.md.
set -euo pipefail

VERSITYGW_VERSION=v1.8.0
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=${PULUMI_CLI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pulumi-storage-user}

# Without Go, what is not built yet cannot be: one line and exit 3 (the local API then runs in fake mode).
need_go() {
  command -v go >/dev/null && return
  echo "real-servers: no Go on PATH to build $1 (the local API's real S3 and FTP): install Go (https://go.dev/dl/) for them; until then the credentials are made up" >&2
  exit 3
}

s3dir=$root/versitygw-$VERSITYGW_VERSION
if [ ! -x "$s3dir/versitygw" ]; then
  need_go "versitygw $VERSITYGW_VERSION"
  echo "building versitygw $VERSITYGW_VERSION into $s3dir (cold build takes a few minutes)" >&2
  start=$(date +%s)
  mkdir -p "$s3dir"
  tmp=$(mktemp -d "$s3dir/gobin.XXXXXX")
  GOBIN=$tmp go install -trimpath -ldflags "-s -w" "github.com/versity/versitygw/cmd/versitygw@$VERSITYGW_VERSION"
  mv "$tmp/versitygw" "$s3dir/versitygw"
  rmdir "$tmp"
  echo "built versitygw $VERSITYGW_VERSION in $(( $(date +%s) - start ))s" >&2
fi

src=$here/../ftp-server
key=$(cat "$src/go.mod" "$src/go.sum" "$src/main.go" | sha256sum | cut -c1-12)
ftpdir=$root/ftp-server-$key
if [ ! -x "$ftpdir/psu-ftp-server" ]; then
  need_go tools/ftp-server
  echo "building tools/ftp-server into $ftpdir" >&2
  start=$(date +%s)
  mkdir -p "$ftpdir"
  (cd "$src" && go build -trimpath -ldflags "-s -w" -o "$ftpdir/psu-ftp-server.tmp.$$" .)
  mv "$ftpdir/psu-ftp-server.tmp.$$" "$ftpdir/psu-ftp-server"
  # Builds of older sources are never used again.
  find "$root" -maxdepth 1 -name 'ftp-server-*' ! -name "ftp-server-$key" -exec rm -rf {} +
  echo "built tools/ftp-server in $(( $(date +%s) - start ))s" >&2
fi

echo "versitygw=$s3dir/versitygw"
echo "ftp=$ftpdir/psu-ftp-server"
