"""The Python SDK's public API, read by griffe (scripts/surface.ts runs this with the venv of
tools/toolchain/griffe.sh).

    python_api.py report <search path>         one line per public object, as users reach it
    python_api.py check <old search path> <new search path>
                                               griffe's breaking changes, one line each, as
                                               `griffe check` prints them

The report spells each object as `import pulumi_storage_user` reaches it, with its signature
(parameters, annotations, defaults, return type), bases and labels, and without docstrings or line
numbers, so it changes only when the API does. `check` is `griffe check` over two folders instead
of two git references, so a release tree extracted with `git archive` can be compared.
"""

import sys

import griffe
from griffe import ExplanationStyle

PACKAGE = "pulumi_storage_user"


def load(search_path: str) -> griffe.Object:
    return griffe.load(PACKAGE, search_paths=[search_path], resolve_aliases=True, resolve_external=False)


def target(obj):
    """The object an alias stands for; None for one pointing outside the package."""
    try:
        return obj.final_target if obj.is_alias else obj
    except (griffe.AliasResolutionError, griffe.CyclicAliasError):
        return None


def params(fn) -> str:
    star = {"variadic positional": "*", "variadic keyword": "**"}
    return ", ".join(
        star.get(p.kind.value, "")
        + p.name
        + (f": {p.annotation}" if p.annotation else "")
        + (f" = {p.default}" if p.default is not None and p.kind.value not in star else "")
        for p in fn.parameters
    )


def describe(path: str, obj) -> list[str]:
    labels = f"  [{' '.join(sorted(obj.labels))}]" if obj.labels else ""
    kind = obj.kind.value
    if kind == "function":
        variants = obj.overloads or [obj]
        return [
            f"def {path}({params(v)})" + (f" -> {v.returns}" if v.returns else "") + labels for v in variants
        ]
    if kind == "class":
        return [f"class {path}({', '.join(str(b) for b in obj.bases)})" + labels]
    if kind == "attribute":
        return [f"{path}" + (f": {obj.annotation}" if obj.annotation else "") + labels]
    return [f"{kind} {path}"]


def report(search_path: str) -> None:
    seen: set[str] = set()

    def walk(path: str, obj) -> None:
        for name in sorted(obj.members):
            member = obj.members[name]
            if not member.is_public:
                continue
            real = target(member)
            if real is None:
                print(f"{path}.{name} = {member.target_path}")
                continue
            for line in describe(f"{path}.{name}", real):
                print(line)
            # Each class and module once, under the first path that reaches it (the package's own
            # re-exports come first: `pulumi_storage_user.StorageUser`, not `.storage_user.StorageUser`).
            if real.kind.value in ("module", "class") and real.path.startswith(PACKAGE) and real.path not in seen:
                seen.add(real.path)
                walk(f"{path}.{name}", real)

    walk(PACKAGE, load(search_path))


def check(old: str, new: str) -> None:
    for breakage in griffe.find_breaking_changes(load(old), load(new)):
        print(breakage.explain(style=ExplanationStyle.ONE_LINE))


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "report":
        report(sys.argv[2])
    elif len(sys.argv) == 4 and sys.argv[1] == "check":
        check(sys.argv[2], sys.argv[3])
    else:
        sys.exit(__doc__)
