#!/usr/bin/env python3
"""Prints the Lambda budget's tables (Markdown) from what
`scripts/lambda_budget.sh` collected in DATA (its first argument):

  meta.txt                      rustc -V, cores, wall time of the clean build
  cargo-timing.html             the `--timings` report of the clean build
  size.tsv                      binary, bytes of the stripped release binary
  rebuild.tsv                   binary, seconds to rebuild the function crate
  tree_<bin>.txt                `cargo tree -e normal --prefix none` lines
                                (also of modyne_peer, for modyne's packages)
  bloat_<bin>_crates.json       `cargo bloat --crates -n 0` (unstripped)
  bloat_with_mapper_fns.json    `cargo bloat -n 0` of with_mapper
  isolated.tsv                  crate, run, unit time compiled alone
"""

import json
import re
import sys
from collections import defaultdict
from pathlib import Path

DATA = Path(sys.argv[1])
BINS = ["hand_written", "with_serde_dynamo", "with_mapper"]
BASELINES = ["hand_written", "with_serde_dynamo"]
MAPPER = "with_mapper"


def kib(n):
    return f"{n / 1024:,.1f} KiB"


def signed(n):
    return f"{'+' if n >= 0 else '−'}{abs(n):,}"


def table(header, rows):
    out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    out += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    print("\n".join(out))
    print()


def read_tsv(name):
    rows = {}
    for line in (DATA / name).read_text().splitlines():
        key, value = line.split("\t")
        rows[key] = value
    return rows


def tree(bin_name):
    """The package names (`name vX`) in a binary's normal dependency tree,
    the binary's own package left out."""
    lines = set()
    for line in (DATA / f"tree_{bin_name}.txt").read_text().splitlines():
        line = re.sub(r" \(\*\)$", "", line.strip())
        if line and not line.startswith(bin_name + " "):
            lines.add(" ".join(line.split()[:2]))
    return lines


OWN = "(the function's own crate)"


def bloat_crates(bin_name):
    """A binary's `cargo bloat --crates`, its own crate under one name for
    the three binaries, so that the rows compare like with like."""
    data = json.loads((DATA / f"bloat_{bin_name}_crates.json").read_text())
    return data, {(OWN if c["name"] == bin_name else c["name"]): c["size"] for c in data["crates"]}


def crate_of(function):
    # cargo-bloat marks a guessed crate with a trailing `?`.
    return function.get("crate", "[Unknown]").rstrip("?")


print("### Machine and toolchain\n")
print((DATA / "meta.txt").read_text().strip())
print()

# Sizes.
sizes = {k: int(v) for k, v in read_tsv("size.tsv").items()}
print("### Stripped release binary\n")
rows = []
for b in BINS:
    rows.append(
        [
            f"`{b}`",
            f"{sizes[b]:,}",
            kib(sizes[b]),
            signed(sizes[MAPPER] - sizes[b]) if b != MAPPER else "",
        ]
    )
table(["binary", "bytes", "size", "with_mapper minus this"], rows)

# Bloat: per crate, text section of the unstripped build.
crates = {b: bloat_crates(b) for b in BINS}
print("### `.text` by crate (unstripped `bloat` profile, `cargo bloat --crates`)\n")
table(
    ["binary", "file (unstripped)", ".text"],
    [[f"`{b}`", f"{crates[b][0]['file-size']:,}", f"{crates[b][0]['text-section-size']:,}"] for b in BINS],
)
mapper = crates[MAPPER][1]
names = set().union(*(crates[b][1] for b in BINS))
delta = {n: mapper.get(n, 0) - crates["hand_written"][1].get(n, 0) for n in names}
print(
    "Crates by what they add to `with_mapper`'s `.text` over `hand_written` "
    "(top 10; bytes):\n"
)
rows = []
for n in sorted(names, key=lambda n: (-delta[n], n))[:10]:
    rows.append(
        [
            n if n == OWN else f"`{n}`",
            f"{mapper.get(n, 0):,}",
            f"{crates['hand_written'][1].get(n, 0):,}",
            f"{crates['with_serde_dynamo'][1].get(n, 0):,}",
            signed(delta[n]),
            signed(mapper.get(n, 0) - crates["with_serde_dynamo"][1].get(n, 0)),
        ]
    )
table(
    ["crate", "with_mapper", "hand_written", "with_serde_dynamo", "vs hand_written", "vs serde_dynamo"],
    rows,
)

# Functions attributable to the mapper: its own crate, crates in neither
# baseline binary, and functions of other crates (std's generics, drop glue,
# serde's) instantiated for the mapper's types.
only_mapper = set(mapper) - set().union(*(crates[b][1] for b in BASELINES)) - {OWN}
functions = json.loads((DATA / "bloat_with_mapper_fns.json").read_text())["functions"]
grouped = defaultdict(lambda: [0, 0])
for f in functions:
    crate = crate_of(f)
    if crate in only_mapper or "dynamodb_mapper" in f["name"]:
        key = (crate, f["name"])
        grouped[key][0] += f["size"]
        grouped[key][1] += 1
total = sum(v[0] for v in grouped.values())
print(
    f"Functions attributable to dynamodb-mapper (crates in neither baseline: "
    f"{', '.join(f'`{c}`' for c in sorted(only_mapper))}; and any function "
    f"whose name mentions `dynamodb_mapper`, such as std's generics and drop "
    f"glue for its types; the function's own code left out): {len(grouped)} "
    f"distinct names, {total:,} bytes. Top 10 (copies: the symbols of that "
    f"name, one per instantiation or codegen unit):\n"
)
rows = []
for (crate, name), (size, copies) in sorted(grouped.items(), key=lambda kv: -kv[1][0])[:10]:
    short = name if len(name) <= 110 else name[:107] + "..."
    rows.append([f"`{crate}`", f"`{short}`", f"{size:,}", copies])
table(["crate", "function", "bytes", "copies"], rows)

# Compile time, from the clean `--timings` build.
html = (DATA / "cargo-timing.html").read_text()
units = json.loads(re.search(r"const UNIT_DATA = (\[.*?\]);\n", html, re.S).group(1))
by_name = defaultdict(float)
for u in units:
    by_name[u["name"]] += u["duration"]


def unit(name):
    found = [u for u in units if u["name"] == name and "build-script" not in u["target"]]
    return found[0] if found else None


def sections(u):
    parts = dict((s[0], s[1]["end"] - s[1]["start"]) for s in (u.get("sections") or []))
    if "frontend" in parts:
        return f"{parts['frontend']:.1f} / {parts.get('codegen', 0):.1f}"
    return ""


base_tree = tree("hand_written")
serde_dynamo_tree = tree("with_serde_dynamo")


def new_units(bin_name, over):
    """The packages of `bin_name`'s tree not in `over`, and the summed time
    of their units (build scripts included) in the clean build."""
    new = tree(bin_name) - over
    return f"{sum(by_name[p.split()[0]] for p in new):.1f} s ({len(new)})"


isolated = defaultdict(list)
for line in (DATA / "isolated.tsv").read_text().splitlines():
    crate, _, seconds = line.split("\t")
    isolated[crate].append(float(seconds))
print("### Compile time (one clean `cargo build --release --workspace --timings`)\n")
rows = []
for name, brought_by in [
    ("dynamodb-mapper", MAPPER),
    ("serde_dynamo", "with_serde_dynamo"),
    ("modyne", "modyne_peer"),
]:
    u = unit(name)
    if u is None:
        rows.append([f"`{name}`", "not built", "", "", ""])
        continue
    cells = [new_units(brought_by, base_tree)]
    cells.append("—" if name == "serde_dynamo" else new_units(brought_by, serde_dynamo_tree))
    alone = " / ".join(f"{s:.1f}" for s in isolated[name]) + " s"
    rows.append([f"`{name}` {u['version']}", f"{u['duration']:.1f} s", sections(u), alone] + cells)
for name in ["aws-sdk-dynamodb", "aws-lc-sys"]:
    total_units = sum(u["duration"] for u in units if u["name"] == name)
    rows.append([f"`{name}` (for scale; all its units)", f"{total_units:.1f} s", sections(unit(name)), "", "", ""])
table(
    [
        "crate",
        "unit time",
        "frontend / codegen",
        "unit time alone (2 runs)",
        "packages it brings over hand_written's tree: summed unit time (count)",
        "the same over with_serde_dynamo's tree",
    ],
    rows,
)
rebuild = read_tsv("rebuild.tsv")
print(
    "The function crates themselves (compile + thin LTO + link of the whole "
    "binary). The clean build compiled the three at once on 2 cores; the rebuild "
    "column touches `src/main.rs` and rebuilds each alone, dependencies cached:\n"
)
rows = []
for b in BINS:
    u = unit(b)
    rows.append([f"`{b}`", f"{u['duration']:.1f} s", f"{float(rebuild[b]):.1f} s"])
table(["function crate", "in the clean build (concurrent)", "rebuild alone"], rows)

# Dependency trees.
print("### Dependency trees (`cargo tree -e normal`, distinct packages, the binary's own left out)\n")
rows = []
for b in BINS:
    t = tree(b)
    new = sorted(t - base_tree) if b != "hand_written" else []
    rows.append([f"`{b}`", len(t), ", ".join(f"`{p}`" for p in new) if new else ""])
table(["binary", "packages", "over hand_written's tree"], rows)
