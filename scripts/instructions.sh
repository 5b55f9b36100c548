#!/usr/bin/env bash
# Instructions per call of each variant of benches/instructions.rs, counted
# by callgrind (two runs per variant: no calls, then CALLS calls; the
# difference over CALLS), and each write and read against the checked floor
# (flat and nested), and one key rendered from a pattern against `format!`.
# The from_item variants take inputs cloned before counting, as many in
# both runs, so neither side counts a clone. Writes the table to
# benches/results/instructions.md (a section of BENCHMARKS.md). Usage:
#   scripts/instructions.sh            # release build, 2,000 calls
# The bench binary is looked for under $CARGO_TARGET_DIR (default target/).
set -euo pipefail
cd "$(dirname "$0")/.."
CALLS=${CALLS:-2000}
cargo bench --bench instructions --no-run 2>/dev/null
bin=$(ls -t "${CARGO_TARGET_DIR:-target}"/release/deps/instructions-* | grep -v '\.d$' | head -n 1)
count() {
  valgrind --tool=callgrind --callgrind-out-file=/dev/null "$bin" "$1" "$2" "$CALLS" 2>&1 \
    | sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}
declare -A per
for v in to_item/floor to_item/checked_floor to_item/hook to_item/patterns \
         from_item/checked_floor from_item/patterns \
         to_item/nested_checked_floor to_item/nested_patterns \
         from_item/nested_checked_floor from_item/nested_patterns \
         from_item/nested_floor from_item/nested_serde_dynamo \
         key/format key/pattern; do
  zero=$(count "$v" 0); many=$(count "$v" "$CALLS")
  per[$v]=$(( (many - zero) / CALLS ))
  printf '%-30s %8d instructions per call\n' "$v" "${per[$v]}"
done
ratio() { python3 -c "print(f'{$1/$2:.2f}x')"; }
w=$(ratio "${per[to_item/patterns]}" "${per[to_item/checked_floor]}")
h=$(ratio "${per[to_item/hook]}" "${per[to_item/checked_floor]}")
r=$(ratio "${per[from_item/patterns]}" "${per[from_item/checked_floor]}")
nw=$(ratio "${per[to_item/nested_patterns]}" "${per[to_item/nested_checked_floor]}")
nr=$(ratio "${per[from_item/nested_patterns]}" "${per[from_item/nested_checked_floor]}")
k=$(ratio "${per[key/pattern]}" "${per[key/format]}")
sd=$(ratio "${per[from_item/nested_serde_dynamo]}" "${per[from_item/nested_floor]}")
echo "to_item, KEY_PATTERNS vs checked floor:           $w"
echo "to_item, hook keys vs checked floor:              $h"
echo "from_item, KEY_PATTERNS vs checked floor:         $r"
echo "to_item, nested, KEY_PATTERNS vs checked floor:   $nw"
echo "from_item, nested, KEY_PATTERNS vs checked floor: $nr"
echo "key, pattern vs format!:                          $k"
echo "from_item, nested, serde_dynamo vs floor:         $sd"
cat > benches/results/instructions.md <<MD
## Instructions per call (callgrind)

\`scripts/instructions.sh\` (\`benches/instructions.rs\`, release build,
$CALLS calls, each run minus a run without calls): the flat seed-001
customer the way the README writes its mapper (\`KEY_PATTERNS\`), the same
mapper writing its keys in a hook, and hand-written \`AttributeValue\` code
without and with the mapper's checks (the floors, keys built with
\`format!\`); the nested seed-001 order (a list of maps, three GSI pairs)
the README's way against its checked floor; one partition key rendered
from a \`const\` pattern (\`KeyPattern::with(..).render()\`) against
\`format!\`. Every call's output is dropped inside the loop, for every
variant alike; from_item inputs are cloned before counting. Counts move by
a few hundred between runs (hash seeds). Targets (#31): KEY_PATTERNS at
most 1.20x the checked floor, flat and nested; a key from a pattern at
most 1.0x \`format!\`. The nested serde_dynamo read against the plain
floor checks the criterion table's baseline by another measure.

| variant | instructions per call |
|---|---|
| to_item, floor | ${per[to_item/floor]} |
| to_item, checked floor | ${per[to_item/checked_floor]} |
| to_item, hook mapper | ${per[to_item/hook]} ($h) |
| to_item, KEY_PATTERNS (README) | ${per[to_item/patterns]} ($w) |
| from_item, checked floor | ${per[from_item/checked_floor]} |
| from_item, KEY_PATTERNS (README) | ${per[from_item/patterns]} ($r) |
| to_item, nested, checked floor | ${per[to_item/nested_checked_floor]} |
| to_item, nested, KEY_PATTERNS (README) | ${per[to_item/nested_patterns]} ($nw) |
| from_item, nested, checked floor | ${per[from_item/nested_checked_floor]} |
| from_item, nested, KEY_PATTERNS (README) | ${per[from_item/nested_patterns]} ($nr) |
| from_item, nested, floor (no checks) | ${per[from_item/nested_floor]} |
| from_item, nested, serde_dynamo (the criterion table's read baseline) | ${per[from_item/nested_serde_dynamo]} ($sd of the floor) |
| key, \`format!\` | ${per[key/format]} |
| key, pattern | ${per[key/pattern]} ($k) |
MD
