#!/usr/bin/env bash
# `python.sh [version]`: downloads the pinned `pulumi` Python SDK (versions.json `pythonPulumi`),
# or that version, from PyPI with everything it needs, setuptools (the build backend of
# sdk/python and examples/python) and mypy (versions.json `mypy`, which type-checks
# examples/python-project), as wheels into the cache outside the clone, and makes a virtual
# environment there with that `pulumi` installed from them; prints its directory. The tests
# install Python services with pip from these wheels only (PIP_NO_INDEX), so they run offline and
# on the version they name. A warm run only checks the environment; an interrupted one is redone.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cache=${PULUMI_CLI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pulumi-storage-user}
version=${1:-$(sed -n 's/^ *"pythonPulumi": "\([^"]*\)".*/\1/p' "$here/versions.json")}
mypy=$(sed -n 's/^ *"mypy": "\([^"]*\)".*/\1/p' "$here/versions.json")
dir="$cache/python/pulumi-$version"
if [ "$("$dir/venv/bin/python" -c 'import pulumi, importlib.metadata as m; print(m.version("pulumi"))' 2>/dev/null)" != "$version" ]; then
  echo "installing pulumi $version (Python) into $dir" >&2
  rm -rf "$dir" && mkdir -p "$dir"
  python3 -m pip download --quiet --dest "$dir/wheels" "pulumi==$version" "setuptools>=61" >&2
  python3 -m venv "$dir/venv"
  "$dir/venv/bin/pip" install --quiet --no-index --find-links "$dir/wheels" "pulumi==$version" >&2
fi
# Added to an environment made before mypy was pinned, without remaking it; the marker comes last.
if [ ! -e "$dir/wheels/.mypy-$mypy" ]; then
  python3 -m pip download --quiet --dest "$dir/wheels" "mypy==$mypy" >&2
  touch "$dir/wheels/.mypy-$mypy"
fi
echo "$dir"
