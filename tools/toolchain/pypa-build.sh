#!/usr/bin/env bash
# PyPA's `build` (versions.json `pypaBuild`), which makes the Python SDK's sdist and wheel for a
# release (scripts/artifacts.ts): downloaded from PyPI with its dependencies and the build backend,
# setuptools (versions.json `setuptools`), as wheels into the cache outside the clone, as
# python.sh does for `pulumi`, and installed into a virtual environment there; prints its
# directory. The build's isolated environment installs setuptools from those wheels only.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cache=${PULUMI_CLI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pulumi-storage-user}
pin() { sed -n "s/^ *\"$1\": \"\\([^\"]*\\)\".*/\\1/p" "$here/versions.json"; }
version=$(pin pypaBuild) setuptools=$(pin setuptools)
dir="$cache/python/build-$version-setuptools-$setuptools"
if [ "$("$dir/venv/bin/python" -c 'import importlib.metadata as m; print(m.version("build"))' 2>/dev/null)" = "$version" ]; then
  echo "$dir"; exit 0
fi
echo "installing PyPA build $version and setuptools $setuptools into $dir" >&2
rm -rf "$dir" && mkdir -p "$dir"
python3 -m pip download --quiet --dest "$dir/wheels" "build==$version" "setuptools==$setuptools" >&2
python3 -m venv "$dir/venv"
"$dir/venv/bin/pip" install --quiet --no-index --find-links "$dir/wheels" "build==$version" >&2
echo "$dir"
