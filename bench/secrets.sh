#!/usr/bin/env bash
# bench/secrets.sh [DIR] -- throughput of the secret masker (indexer/src/secrets.rs) over every
# file under DIR (default: the cargo registry sources, ~30k files of Rust, TOML, JSON, YAML).
# Prints files, MB, seconds, MB/s and how many files had something masked; SHOW=1 also prints
# the first changed lines of each masked file, to review what the rules catch.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
DIR=${1:-${CARGO_HOME:-$HOME/.cargo}/registry/src}
cd "$HERE/.."
cargo build -q --release -p indexer --example mask_speed
"${CARGO_TARGET_DIR:-target}/release/examples/mask_speed" "$DIR"
