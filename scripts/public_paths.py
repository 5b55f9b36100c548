#!/usr/bin/env python3
"""Lists every public path of the library and fails when an item has two.

One path per name (#30): an item of the crate is reachable by exactly one
public path. The one exception is `prelude`, whose whole point is to bring
traits that live elsewhere into scope with one import; its entries must be
traits.

The paths come from rustdoc's JSON output (nightly), so they are the ones a
user sees: re-exports followed, private modules and `#[doc(hidden)]` items
left out, as in the rendered documentation.

    python3 scripts/public_paths.py            # build the JSON, check
    python3 scripts/public_paths.py --list     # also print every path
    python3 scripts/public_paths.py --json F   # check an existing JSON file

Exit status 1 when a name has two paths or the prelude holds a non-trait.
"""

import argparse
import json
import os
import subprocess
import sys
from collections import defaultdict

CRATE = "dynamodb_mapper"
PRELUDE = "prelude"


def build_json(root):
    """Runs rustdoc (nightly) with JSON output; returns the file's path."""
    target = os.environ.get("CARGO_TARGET_DIR", os.path.join(root, "target"))
    subprocess.run(
        [
            "cargo", "+nightly", "rustdoc", "--quiet", "-p", "dynamodb-mapper", "--lib",
            "--all-features", "--", "-Zunstable-options", "--output-format", "json",
        ],
        cwd=root,
        check=True,
    )
    return os.path.join(target, "doc", f"{CRATE}.json")


def kind_of(item):
    inner = item["inner"]
    return next(iter(inner)) if isinstance(inner, dict) else inner


def walk(index, root_id):
    """Every (path, id) reachable from the crate root through public items."""
    found = []
    seen_modules = set()

    def visit(module_id, prefix):
        if (module_id, prefix) in seen_modules:
            return
        seen_modules.add((module_id, prefix))
        module = index[module_id]["inner"]["module"]
        for item_id in module["items"]:
            item = index.get(str(item_id))
            if item is None or item.get("visibility") != "public":
                continue
            kind = kind_of(item)
            if kind == "use":
                use = item["inner"]["use"]
                target = use.get("id")
                if target is None or str(target) not in index:
                    continue  # a re-export of another crate's item
                target_item = index[str(target)]
                if use.get("is_glob"):
                    if kind_of(target_item) == "module":
                        visit(str(target), prefix)
                    continue
                path = prefix + (use["name"],)
                found.append((path, str(target)))
                if kind_of(target_item) == "module":
                    visit(str(target), path)
            else:
                name = item.get("name")
                if name is None:
                    continue  # impls
                path = prefix + (name,)
                found.append((path, str(item_id)))
                if kind == "module":
                    visit(str(item_id), path)

    visit(str(root_id), (CRATE,))
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", help="an existing rustdoc JSON file")
    parser.add_argument("--list", action="store_true", help="print every path")
    args = parser.parse_args()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    doc = json.load(open(args.json or build_json(root)))
    index = doc["index"]
    found = walk(index, doc["root"])

    by_id = defaultdict(list)
    problems = []
    for path, item_id in found:
        if len(path) > 1 and path[1] == PRELUDE:
            if len(path) > 2 and kind_of(index[item_id]) != "trait":
                problems.append(f"{'::'.join(path)}: the prelude holds traits only")
            continue
        by_id[item_id].append("::".join(path))
    if args.list:
        for paths in sorted(by_id.values()):
            print(", ".join(sorted(paths)))
    for item_id, paths in sorted(by_id.items(), key=lambda p: sorted(p[1])):
        if len(paths) > 1:
            problems.append("two paths: " + ", ".join(sorted(paths)))
    print(f"{len(by_id)} public names, {sum(len(p) for p in by_id.values())} paths")
    for problem in problems:
        print(problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
