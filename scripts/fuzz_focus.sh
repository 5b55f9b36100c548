#!/usr/bin/env bash
# Builds a fuzz target with coverage instrumentation on this workspace's own
# crates only (dynamodb-mapper and the support crate that drives the target),
# not on the SDK, the HTTP stack or the embedded emulator, then runs it.
#
#   scripts/fuzz_focus.sh oracle [libFuzzer options...]
#
# `cargo fuzz` instruments every crate. For targets that run the SDK against
# the embedded emulator (`oracle`), libFuzzer then spends most of each run
# collecting the features of code this crate does not own: measured on the
# oracle target (2 cores, no sanitizer, inputs up to 256 bytes) 134 runs/s
# with `cargo fuzz run -s none` and 277 runs/s with this build. Guidance
# follows only the crate's own branches, which is what the oracle is for.
# No sanitizer: the crate has no `unsafe` code. Debug assertions and
# overflow checks stay on, as in `cargo fuzz`'s default build.
set -euo pipefail
target=${1:?usage: scripts/fuzz_focus.sh TARGET [libFuzzer options...]}
shift
cd "$(dirname "$0")/../fuzz"
coverage='["-Cpasses=sancov-module","-Cllvm-args=-sanitizer-coverage-level=4","-Cllvm-args=-sanitizer-coverage-inline-8bit-counters","-Cllvm-args=-sanitizer-coverage-pc-table","-Cllvm-args=-sanitizer-coverage-trace-compares"]'
RUSTFLAGS="--cfg fuzzing -Cdebug-assertions -Coverflow-checks" \
  cargo +nightly build -Zprofile-rustflags --release --bin "$target" --target-dir target/focus \
  --config "profile.release.package.dynamodb-mapper.rustflags=$coverage" \
  --config "profile.release.package.dynamodb-mapper-support.rustflags=$coverage"
mkdir -p "corpus/$target" "artifacts/$target"
exec "target/focus/release/$target" "corpus/$target" -artifact_prefix="artifacts/$target/" "$@"
