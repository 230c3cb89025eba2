#!/usr/bin/env bash
# griffe (versions.json `griffe`), which reads the Python SDK's API for its surface report and
# finds breaking changes between two releases (tools/surface/python_api.py, scripts/surface.ts):
# downloaded from PyPI with its dependencies as wheels into the cache outside the clone, as
# python.sh does for `pulumi` and mypy, and installed into a virtual environment there; prints its
# directory. A warm run only checks the environment; an interrupted one is redone.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cache=${PULUMI_CLI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pulumi-storage-user}
version=$(sed -n 's/^ *"griffe": "\([^"]*\)".*/\1/p' "$here/versions.json")
dir="$cache/python/griffe-$version"
if [ "$("$dir/venv/bin/python" -c 'import importlib.metadata as m; print(m.version("griffe"))' 2>/dev/null)" = "$version" ]; then
  echo "$dir"; exit 0
fi
echo "installing griffe $version into $dir" >&2
rm -rf "$dir" && mkdir -p "$dir"
python3 -m pip download --quiet --dest "$dir/wheels" "griffe==$version" >&2
python3 -m venv "$dir/venv"
"$dir/venv/bin/pip" install --quiet --no-index --find-links "$dir/wheels" "griffe==$version" >&2
echo "$dir"
