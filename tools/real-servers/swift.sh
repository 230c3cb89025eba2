#!/usr/bin/env bash
# Swift and Keystone for the local API's real Swift, and the Swift clients the tests run, from
# Debian's packages (docs/real-servers.md "Swift"). They are system packages, outside the project's
# cache, so nothing installs them unless asked by name:
#   swift.sh            checks: exits 0 when every command is there, else says what is missing, exits 1
#   swift.sh --install  the opt-in (`npm run api -- --swift`, `npm run demo -- --swift`, .ci/run):
#                       says what it installs and why, then apt-get update and install, as root
# Every failure is one line on stderr and exit 1; the local API then makes the Swift credentials up.
set -euo pipefail
packages=(swift-proxy swift-account swift-container swift-object python3-swiftclient rclone
  python3-keystone python3-keystonemiddleware uwsgi-core uwsgi-plugin-python3)
commands=(keystone-manage uwsgi swift-ring-builder swift-proxy-server swift-account-server
  swift-container-server swift-object-server swift rclone)
missing=()
for c in "${commands[@]}"; do command -v "$c" >/dev/null || missing+=("$c"); done
[ -f /usr/lib/uwsgi/plugins/python3_plugin.so ] || missing+=(uwsgi-plugin-python3)
[ ${#missing[@]} -eq 0 ] && exit 0
fail() { echo "swift: not installed ($1): the local API's Swift credentials stay made up; S3 and FTP are real" >&2; exit 1; }
[ "${1:-}" = --install ] || fail "${missing[*]} missing; bash tools/real-servers/swift.sh --install installs them"
command -v apt-get >/dev/null || fail "no apt-get: Swift's packages are Debian's"
[ "$(id -u)" = 0 ] || fail "apt-get needs root: sudo bash tools/real-servers/swift.sh --install"
echo "swift: installing system-wide with apt-get (outside ~/.cache/pulumi-storage-user), for the local API to create each user on a real Keystone and Swift: apt-get update, then apt-get install ${packages[*]} (cold: about 1 to 2 minutes)" >&2
start=$(date +%s)
log=$(mktemp)
trap 'rm -f "$log"' EXIT
# The package lists of a new machine are empty or old: update them once, then install. apt's own
# words on failure (a held dpkg lock, no network) make the one line.
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >"$log" 2>&1 || fail "apt-get update: $(grep -m1 '^E:' "$log" || tail -n1 "$log")"
apt-get install -y -qq --no-install-recommends "${packages[@]}" >"$log" 2>&1 ||
  fail "apt-get install: $(grep -m1 '^E:' "$log" || tail -n1 "$log")"
echo "swift: installed Swift and Keystone in $(( $(date +%s) - start ))s" >&2
