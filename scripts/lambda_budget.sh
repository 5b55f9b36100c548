#!/usr/bin/env bash
# The Lambda budget (issue #31): what dynamodb-mapper costs a Lambda
# function in binary size and compile time, against the same function
# written by hand and with serde_dynamo (benches/lambda_budget/, a workspace
# of its own). Reproduces every figure of benches/lambda_budget/RESULTS.md
# and prints them as Markdown tables:
#
#   1. compile time: one clean `cargo build --release --workspace --timings`
#      (the three functions and modyne_peer, which only compiles modyne);
#   2. size: each function built alone (`-p`, so each gets its own feature
#      set) with the release profile (stripped, thin LTO); then its crate
#      rebuilt alone after a touch, dependencies cached;
#   3. what the bytes are: `cargo bloat` (installed from crates.io into
#      $OUT/tools when missing) on the `bloat` profile, the release profile
#      unstripped;
#   4. dependency trees: `cargo tree -e normal` of each function (and of
#      modyne_peer, for the packages modyne would bring);
#   5. each library crate's compile time alone: dynamodb-mapper,
#      serde_dynamo and modyne cleaned from ws/ (`cargo clean -p`, our own
#      target directory only) and rebuilt with `--timings` through the
#      package that uses it, twice, nothing else of ours building.
#
# Usage: scripts/lambda_budget.sh
#        LAMBDA_BUDGET_STEPS="2 3" scripts/lambda_budget.sh   (some steps;
#        the tables need the data of all five, from this run or an earlier)
# Everything is built under $LAMBDA_BUDGET_DIR (default target/lambda-budget):
# timings/ (removed and rebuilt from scratch each run), ws/ (sizes and bloat,
# kept between runs), tools/ (cargo-bloat), data/ (what the tables are made
# from, and tables.md). One cargo command at a time; about 25 minutes on 2
# cores from nothing.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
ws="$repo/benches/lambda_budget"
out=${LAMBDA_BUDGET_DIR:-$repo/target/lambda-budget}
data="$out/data"
bins=(hand_written with_serde_dynamo with_mapper)
steps=" ${LAMBDA_BUDGET_STEPS:-1 2 3 4 5} "
step() { [[ "$steps" == *" $1 "* ]]; }
mkdir -p "$data"
cd "$ws"

# cargo-bloat, pinned, into our own root.
export PATH="$out/tools/bin:$PATH"
if ! cargo bloat --version >/dev/null 2>&1; then
  CARGO_TARGET_DIR="$out/install-build" \
    cargo install cargo-bloat --version 0.12.1 --locked --root "$out/tools"
fi

# 1. Compile time: one clean build of the whole workspace.
if step 1; then
rm -rf "$out/timings"
started=$(date +%s.%N)
CARGO_TARGET_DIR="$out/timings" cargo build --release --workspace --locked --timings
wall=$(echo "$(date +%s.%N) - $started" | bc)
cp "$out/timings/cargo-timings/cargo-timing.html" "$data/cargo-timing.html"
dirty=$(git -C "$repo" status --porcelain -- src Cargo.toml | wc -l)
{
  echo "- dynamodb-mapper at commit \`$(git -C "$repo" rev-parse --short HEAD)\` ($dirty changed files under src/ and Cargo.toml when built)"
  echo "- \`$(rustc -V)\`, \`$(cargo -V)\`"
  echo "- $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')), shared with another engineer's builds"
  echo "- clean \`cargo build --release --workspace --timings\`: ${wall%.*} s wall"
} >"$data/meta.txt"
fi

# 2. Sizes (stripped release binaries) and the function crate's rebuild.
export CARGO_TARGET_DIR="$out/ws"
if step 2; then
: >"$data/size.tsv"
: >"$data/rebuild.tsv"
for b in "${bins[@]}"; do
  cargo build --release --locked -p "$b"
  printf '%s\t%s\n' "$b" "$(stat -c %s "$CARGO_TARGET_DIR/release/$b")" >>"$data/size.tsv"
  touch "$b/src/main.rs"
  started=$(date +%s.%N)
  cargo build --release --locked -p "$b"
  printf '%s\t%s\n' "$b" "$(echo "$(date +%s.%N) - $started" | bc)" >>"$data/rebuild.tsv"
done
fi

# 3. What the bytes are: the same binaries unstripped.
if step 3; then
for b in "${bins[@]}"; do
  cargo bloat --profile bloat --locked -p "$b" --crates -n 0 --message-format json \
    >"$data/bloat_${b}_crates.json"
done
cargo bloat --profile bloat --locked -p with_mapper -n 0 --message-format json \
  >"$data/bloat_with_mapper_fns.json"
fi

# 4. Dependency trees (modyne_peer's: what modyne brings).
if step 4; then
for b in "${bins[@]}" modyne_peer; do
  cargo tree --locked -e normal -p "$b" --prefix none >"$data/tree_$b.txt"
done
fi

# 5. Each library crate alone, twice: its unit time in the `--timings`
# report of a build that compiles only it and the package using it.
if step 5; then
: >"$data/isolated.tsv"
for pair in dynamodb-mapper:with_mapper serde_dynamo:with_serde_dynamo modyne:modyne_peer; do
  crate=${pair%%:*} user=${pair##*:}
  cargo build --release --locked -p "$user"
  for rep in 1 2; do
    cargo clean --release -p "$crate"
    cargo build --release --locked -p "$user" --timings
    python3 - "$CARGO_TARGET_DIR/cargo-timings/cargo-timing.html" "$crate" "$rep" \
      >>"$data/isolated.tsv" <<'EOF'
import json, re, sys
html = open(sys.argv[1]).read()
units = json.loads(re.search(r"const UNIT_DATA = (\[.*?\]);\n", html, re.S).group(1))
unit = next(u for u in units if u["name"] == sys.argv[2] and "build-script" not in u["target"])
print(f"{sys.argv[2]}\t{sys.argv[3]}\t{unit['duration']}")
EOF
  done
done
fi

python3 "$ws/summarize.py" "$data" | tee "$data/tables.md"
