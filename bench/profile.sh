#!/usr/bin/env bash
# Where a READ's time goes, per server, on this machine: perf with JIT symbols, a per-READ CPU breakdown.
#   bench/profile.sh                              rawfuse -f, jnr-fuse, mirror, depotfs at read_ahead_kb 128
#   PROFILE_SERVERS=depotfs PROFILE_RA=1024 bench/profile.sh
# Prepends the tables to bench/RESULTS.md (PROFILE_WRITE=0: print only). Knobs in bench/README.md.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
# shellcheck source=setup.sh
source "$ROOT/bench/setup.sh"
bench_need_root bench/profile.sh
bench_apt linux-perf fio libfuse2 || true
command -v perf >/dev/null || { echo "bench/profile.sh: perf is required (apt-get install linux-perf)" >&2; exit 2; }
bench_build

bench_work purefuse-profile
python3 "$ROOT/bench/profile.py" "$@"
