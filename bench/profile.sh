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

BENCH_WORK=$(mktemp -d /tmp/purefuse-profile.XXXXXX)
export BENCH_WORK
cleanup() {
  set +e   # best effort: every step runs even if one fails
  if [ -f "$BENCH_WORK/mounts" ]; then
    tac "$BENCH_WORK/mounts" | while read -r m; do
      [ -n "$m" ] && mountpoint -q "$m" && { umount "$m" 2>/dev/null || umount -l "$m"; }
    done
  fi
  if [ -f "$BENCH_WORK/pids" ]; then
    while read -r p; do [ -n "$p" ] && kill "$p" 2>/dev/null || true; done < "$BENCH_WORK/pids"
  fi
  if [ -f "$BENCH_WORK/restore" ]; then
    while read -r path old; do [ -n "$path" ] && echo "$old" > "$path" 2>/dev/null || true; done < "$BENCH_WORK/restore"
  fi
  if ! grep -q " $BENCH_WORK" /proc/self/mountinfo; then rm -rf "$BENCH_WORK"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM
python3 "$ROOT/bench/profile.py" "$@"
