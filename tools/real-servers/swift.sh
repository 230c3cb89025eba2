#!/usr/bin/env bash
# Installs the Swift and Keystone servers, and the Swift clients the tests run, from Debian's
# packages (docs/real-servers.md "Swift"). Idempotent: when every command is there it only checks.
# Without apt-get or root it installs nothing and says so in one line: the local API then makes
# the Swift credentials up, and S3 and FTP still run (server/swift-backend.ts says the same).
set -euo pipefail
packages=(swift-proxy swift-account swift-container swift-object python3-swiftclient rclone
  python3-keystone python3-keystonemiddleware uwsgi-core uwsgi-plugin-python3)
commands=(keystone-manage uwsgi swift-ring-builder swift-proxy-server swift-account-server
  swift-container-server swift-object-server swift rclone)
missing=()
for c in "${commands[@]}"; do command -v "$c" >/dev/null || missing+=("$c"); done
[ -f /usr/lib/uwsgi/plugins/python3_plugin.so ] || missing+=(uwsgi-plugin-python3)
[ ${#missing[@]} -eq 0 ] && exit 0
if ! command -v apt-get >/dev/null || [ "$(id -u)" != 0 ]; then
  echo "swift: not installed (${missing[*]} missing; needs apt-get as root): the local API's Swift credentials are made up, S3 and FTP are real" >&2
  exit 0
fi
echo "installing Swift and Keystone from Debian's packages (cold: about 1 to 2 minutes)" >&2
start=$(date +%s)
# The package lists of a new machine are empty or old: update them once, then install.
DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${packages[@]}" >/dev/null
echo "installed Swift and Keystone in $(( $(date +%s) - start ))s" >&2
