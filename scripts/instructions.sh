#!/usr/bin/env bash
# Instructions per call of each variant of benches/instructions.rs, counted
# by callgrind (two runs per variant: no calls, then CALLS calls; the
# difference over CALLS), and each write and read against the checked floor.
# The from_item variants clone their input item inside the loop; the clone's
# own count (clone_item) is subtracted from both sides. Usage:
#   scripts/instructions.sh            # release build, 2,000 calls
set -euo pipefail
cd "$(dirname "$0")/.."
CALLS=${CALLS:-2000}
cargo bench --bench instructions --no-run 2>/dev/null
bin=$(ls -t target/release/deps/instructions-* | grep -v '\.d$' | head -n 1)
count() {
  valgrind --tool=callgrind --callgrind-out-file=/dev/null "$bin" "$1" "$2" 2>&1 \
    | sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}
declare -A per
for v in to_item/floor to_item/checked_floor to_item/hook to_item/patterns \
         from_item/checked_floor from_item/patterns clone_item; do
  zero=$(count "$v" 0); many=$(count "$v" "$CALLS")
  per[$v]=$(( (many - zero) / CALLS ))
  printf '%-26s %8d instructions per call\n' "$v" "${per[$v]}"
done
ratio() { python3 -c "print(f'{$1/$2:.2f}x')"; }
clone=${per[clone_item]}
echo "to_item, KEY_PATTERNS vs checked floor:  $(ratio "${per[to_item/patterns]}" "${per[to_item/checked_floor]}")"
echo "to_item, hook keys vs checked floor:     $(ratio "${per[to_item/hook]}" "${per[to_item/checked_floor]}")"
echo "to_item, KEY_PATTERNS vs hook keys:      $(ratio "${per[to_item/patterns]}" "${per[to_item/hook]}")"
echo "from_item, KEY_PATTERNS vs checked floor (clone subtracted): $(ratio "$(( per[from_item/patterns] - clone ))" "$(( per[from_item/checked_floor] - clone ))")"
