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

bench_work purefuse-bench

# JMH first (CPU only, ~3 min); bench.py puts its table into the RESULTS.md section.
if [ "${BENCH_JMH:-0}" != 0 ]; then
  BENCH_JMH_MD="$BENCH_WORK/jmh.md" BENCH_BUILD=0 "$ROOT/bench/jmh.sh" "${BENCH_JMH_FILTER:-io.github.purefuse.bench}" \
    ${BENCH_JMH_ARGS:--wi 1 -w 1s -i 3 -r 1s -f 1} >/dev/null || echo "bench/run.sh: JMH failed; continuing without it" >&2
fi
python3 "$ROOT/bench/bench.py" "$@"
