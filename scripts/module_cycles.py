#!/usr/bin/env python3
"""Lists the dependencies between a crate's top-level modules and fails on a
cycle.

A module `a` depends on `b` when code in `src/a.rs` or `src/a/**` names
`crate::b` (in a `use` or a path); in this crate only `crate::` paths cross
top-level modules.
Comments, doc comments and literals are ignored, so a doc link does not
count; so are files named `tests.rs` (unit tests may use anything).

The same holds between the files of each folder (a cycle through the
folder's `mod.rs` re-exports included), so a folder's files form layers
too.

Usage: scripts/module_cycles.py [--layers ARCHITECTURE.md] [SRC_DIR ...]
(default: src testkit/src support/src). Prints the edges and each cycle found; exits 1
when there is one. With --layers, also reads the table of rows in that file
(`| 3 | `schema` | ... |`) and fails when a module of the first SRC_DIR
uses one of its own or a later row, or is missing from the table, so the
document stays true.
"""
import re
import sys
from pathlib import Path


def top_module(src: Path, path: Path) -> str | None:
    rel = path.relative_to(src)
    first = rel.parts[0]
    if first in ("lib.rs", "main.rs"):
        return None  # the crate root re-exports everything
    return first[:-3] if first.endswith(".rs") else first


def code_of(text: str) -> str:
    """The code of a Rust file without comments, string and char literals."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            i = n if j < 0 else j + 2
        elif c == "r" and re.match(r'r#*"', text[i:]) and not (i and (text[i - 1].isalnum() or text[i - 1] == "_")):
            hashes = re.match(r'r(#*)"', text[i:]).group(1)
            j = text.find('"' + hashes, i + 2 + len(hashes))
            i = n if j < 0 else j + 1 + len(hashes)
            out.append('""')
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            i = j + 1
            out.append('""')
        elif c == "'" and re.match(r"'(\\.[^']*|[^\\'])'", text[i:]):
            i += re.match(r"'(\\.[^']*|[^\\'])'", text[i:]).end()
            out.append("' '")
        else:
            out.append(c)
            i += 1
    return "".join(out)


def edges(src: Path) -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    modules = {top_module(src, p) for p in src.rglob("*.rs")} - {None}
    for path in sorted(src.rglob("*.rs")):
        module = top_module(src, path)
        if module is None:
            continue
        graph.setdefault(module, set())
        if path.name == "tests.rs":
            continue
        code = code_of(path.read_text())
        names = set(re.findall(r"\bcrate::([a-z_][a-z0-9_]*)", code))
        # `use crate::{a::X, b::Y}` groups.
        for group in re.findall(r"\bcrate::\{([^}]*)\}", code):
            names |= set(re.findall(r"(?:^|[,{\s])([a-z_][a-z0-9_]*)::", group))
        for name in names:
            if name in modules and name != module:
                graph[module].add(name)
    return graph


IDENT = r"[A-Za-z_][A-Za-z0-9_]*"


def folder_graphs(src: Path) -> dict[str, dict[str, set[str]]]:
    """For each folder with a `mod.rs`, the dependencies between its files
    (and sub-folders): `a` depends on `b` when `a` names `super::b`, a name
    `mod.rs` re-exports from `b` (`super::Table` with `pub use
    table::Table;` in `mod.rs`), or the crate path of `b`. `mod.rs` itself
    is the folder's root and no node, as `lib.rs` is for the crate."""
    out: dict[str, dict[str, set[str]]] = {}
    for mod_rs in sorted(src.rglob("mod.rs")):
        folder = mod_rs.parent
        path = "::".join(folder.relative_to(src).parts)
        siblings = {p.stem for p in folder.glob("*.rs") if p.name not in ("mod.rs", "tests.rs")}
        siblings |= {d.name for d in folder.iterdir() if (d / "mod.rs").exists()}
        reexported: dict[str, str] = {}
        root = code_of(mod_rs.read_text())
        for m in re.finditer(
            r"\bpub(?:\([^)]*\))?\s+use\s+(?:self::)?(" + IDENT + r")::(\{[^}]*\}|" + IDENT + r")\s*;",
            root,
        ):
            module, names = m.group(1), m.group(2)
            if module in siblings:
                for name in re.findall(IDENT, names.strip("{}")):
                    reexported.setdefault(name, module)
        graph: dict[str, set[str]] = {s: set() for s in siblings}
        for node in sorted(siblings):
            single = folder / f"{node}.rs"
            files = [single] if single.exists() else sorted((folder / node).rglob("*.rs"))
            for f in files:
                if f.name == "tests.rs":
                    continue
                code = code_of(f.read_text())
                # Unit tests (by convention at the end) may use anything.
                code = code.split("#[cfg(test)]")[0]
                refs: set[str] = set()
                if f.parent == folder:
                    refs |= set(re.findall(r"\bsuper::(" + IDENT + ")", code))
                    for group in re.findall(r"\bsuper::\{([^}]*)\}", code):
                        refs |= set(re.findall(r"(?:^|[,{\s])(" + IDENT + ")", group))
                if path:
                    prefix = r"\bcrate::" + re.escape(path) + "::"
                    refs |= set(re.findall(prefix + "(" + IDENT + ")", code))
                    for group in re.findall(prefix + r"\{([^}]*)\}", code):
                        refs |= set(re.findall(r"(?:^|[,{\s])(" + IDENT + ")", group))
                for ref in refs:
                    target = ref if ref in siblings else reexported.get(ref)
                    if target and target != node:
                        graph[node].add(target)
        out[path or "(crate)"] = graph
    return out


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    # Strongly connected components (Tarjan) with more than one module.
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []
    counter = [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def layers(path: Path) -> dict[str, int]:
    rows: dict[str, int] = {}
    for line in path.read_text().split("\n"):
        m = re.match(r"\|\s*(\d+)\s*\|([^|]*)\|", line)
        if m:
            for name in re.findall(r"`([a-z_]+)`", m.group(2)):
                rows[name] = int(m.group(1))
    return rows


def check_layers(graph: dict[str, set[str]], rows: dict[str, int]) -> list[str]:
    problems = []
    for module in sorted(graph):
        if module not in rows:
            problems.append(f"{module} is in no row of the layer table")
            continue
        for dep in sorted(graph[module]):
            if dep in rows and rows[dep] >= rows[module]:
                problems.append(
                    f"{module} (row {rows[module]}) uses {dep} (row {rows[dep]})"
                )
    return problems


def main() -> int:
    args = sys.argv[1:]
    table = None
    if args[:1] == ["--layers"]:
        table, args = Path(args[1]), args[2:]
    roots = [Path(a) for a in args] or [Path("src"), Path("testkit/src"), Path("support/src")]
    failed = False
    for src in roots:
        graph = edges(src)
        print(f"== {src}")
        for module in sorted(graph):
            print(f"  {module} -> {', '.join(sorted(graph[module])) or '(nothing)'}")
        found = cycles(graph)
        for comp in found:
            failed = True
            print(f"  CYCLE among: {', '.join(comp)}")
            for a in comp:
                for b in sorted(graph[a] & set(comp)):
                    print(f"    {a} -> {b}")
        if not found:
            print("  no cycle")
        for folder, files in folder_graphs(src).items():
            for comp in cycles(files):
                failed = True
                print(f"  CYCLE among the files of {folder}/: {', '.join(comp)}")
                for a in comp:
                    for b in sorted(files[a] & set(comp)):
                        print(f"    {a} -> {b}")
        if table is not None and src == roots[0]:
            problems = check_layers(graph, layers(table))
            for p in problems:
                failed = True
                print(f"  LAYERS ({table}): {p}")
            if not problems:
                print(f"  every module uses only earlier rows of {table}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
