#!/usr/bin/env bash
# A Lambda cold start's registry: 20 entity types with KEY_PATTERNS, built
# once in a fresh process (benches/cold_start.rs). Prints the instructions
# of the first build (callgrind: a process with one build minus one with
# none, so process start-up is not counted) and of each later build, and the
# first build's wall time as the median of 21 fresh processes. Usage:
#   scripts/cold_start.sh
set -euo pipefail
cd "$(dirname "$0")/.."
cargo bench --bench cold_start --no-run 2>/dev/null
bin=$(ls -t target/release/deps/cold_start-* | grep -v '\.d$' | head -n 1)
count() {
  valgrind --tool=callgrind --callgrind-out-file=/dev/null "$bin" "$1" 2>&1 \
    | sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}
none=$(count 0); one=$(count 1); eleven=$(count 11)
echo "first build (cold, per-type caches filled): $(( one - none )) instructions"
echo "each later build (caches warm):             $(( (eleven - one) / 10 )) instructions"
times=$(for _ in $(seq 21); do "$bin" 1 | sed -n 's/first build: \([0-9]*\) µs/\1/p'; done | sort -n)
echo "first build, wall time, median of 21 processes: $(echo "$times" | sed -n 11p) µs (min $(echo "$times" | head -1), max $(echo "$times" | tail -1))"
cat > benches/results/cold_start.md <<MD
## Cold start: a 20-type registry

\`scripts/cold_start.sh\` (\`benches/cold_start.rs\`): 20 entity types on one
table, each with \`KEY_PATTERNS\` for the table keys and one GSI, registered and
built once in a fresh process (the per-type caches filled on first use, as in
a Lambda's cold start). Target (#31): ready in under 1 ms on this machine.

| measure | value |
|---|---|
| first build, instructions (callgrind, process with one build minus none) | $(( one - none )) |
| each later build, instructions | $(( (eleven - one) / 10 )) |
| first build, wall time, median of 21 fresh processes | $(echo "$times" | sed -n 11p) µs |
MD
