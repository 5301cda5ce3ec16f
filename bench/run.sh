#!/usr/bin/env bash
# purefuse benchmark suite: ONE command, as root, on an otherwise idle machine.
#   bench/run.sh                 full run (< 25 min): table on stdout and prepended to bench/RESULTS.md
#   BENCH_SIZE_GB=1 BENCH_TREE=10000 BENCH_RUNS=1 bench/run.sh    quick harness check
# Knobs (environment) are documented in bench/README.md.  Everything mounted is unmounted on exit;
# only processes started by this run are stopped, by pid.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"

# shellcheck source=setup.sh
source "$ROOT/bench/setup.sh"
bench_need_root bench/run.sh
for t in gcc dd find python3; do
  command -v "$t" >/dev/null || { echo "bench/run.sh: $t is required" >&2; exit 2; }
done
# fio (random reads; else a python pread loop), libfuse2 (the jnr-fuse row); the S3 part installs its own
bench_apt fio libfuse2 || true

# Build the Java servers (depotfs, examples), the JMH uberjar and the peers (jnr-fuse, S3 raw GETs).
bench_build

BENCH_WORK=$(mktemp -d /tmp/purefuse-bench.XXXXXX)
export BENCH_WORK
cleanup() {
  set +e   # best effort: every step runs even if one fails
  # Safety net if the python driver died hard: unmount what it recorded (reverse order), stop its pids.
  if [ -f "$BENCH_WORK/mounts" ]; then
    tac "$BENCH_WORK/mounts" | while read -r m; do
      [ -n "$m" ] && mountpoint -q "$m" && { umount "$m" 2>/dev/null || umount -l "$m"; }
    done
  fi
  if [ -f "$BENCH_WORK/pids" ]; then
    while read -r p; do [ -n "$p" ] && kill "$p" 2>/dev/null || true; done < "$BENCH_WORK/pids"
  fi
  if [ -f "$BENCH_WORK/restore" ]; then   # sysfs values the driver changed (enable_uring), put back
    while read -r path old; do [ -n "$path" ] && echo "$old" > "$path" 2>/dev/null || true; done < "$BENCH_WORK/restore"
  fi
  if ! grep -q " $BENCH_WORK" /proc/self/mountinfo; then rm -rf "$BENCH_WORK"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# JMH first (CPU only, ~3 min); bench.py puts its table into the RESULTS.md section.
if [ "${BENCH_JMH:-0}" != 0 ]; then
  BENCH_JMH_MD="$BENCH_WORK/jmh.md" BENCH_BUILD=0 "$ROOT/bench/jmh.sh" "${BENCH_JMH_FILTER:-io.github.purefuse.bench}" \
    ${BENCH_JMH_ARGS:--wi 1 -w 1s -i 3 -r 1s -f 1} >/dev/null || echo "bench/run.sh: JMH failed; continuing without it" >&2
fi
python3 "$ROOT/bench/bench.py" "$@"
