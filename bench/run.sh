#!/usr/bin/env bash
# purefuse benchmark suite: ONE command, as root, on an otherwise idle machine.
#   bench/run.sh                 full run (~20 min): table on stdout and prepended to bench/RESULTS.md
#   BENCH_SIZE_GB=1 BENCH_TREE=10000 BENCH_RUNS=1 bench/run.sh    quick harness check
# Knobs (environment) are documented in bench/README.md.  Everything mounted is unmounted on exit;
# only processes started by this run are stopped, by pid.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"

[ "$(id -u)" = 0 ] || { echo "bench/run.sh: must run as root (mount, drop_caches, sysfs)" >&2; exit 2; }
[ -e /dev/fuse ] || { echo "bench/run.sh: /dev/fuse missing" >&2; exit 2; }
for t in gcc dd find python3; do
  command -v "$t" >/dev/null || { echo "bench/run.sh: $t is required" >&2; exit 2; }
done
if ! command -v fio >/dev/null; then
  echo "bench/run.sh: installing fio (Debian package)" >&2
  (apt-get install -y fio >/dev/null 2>&1 || { apt-get update >/dev/null 2>&1 && apt-get install -y fio >/dev/null 2>&1; }) \
    || echo "bench/run.sh: fio unavailable; random reads use a python pread loop" >&2
fi

# Build the Java servers (depotfs, examples) and the JMH uberjar unless told not to.
if [ "${BENCH_BUILD:-1}" != 0 ]; then
  modules=()
  for m in depotfs examples bench; do [ -f "$m/pom.xml" ] && modules+=("$m"); done
  pl=$(IFS=,; echo "${modules[*]}")
  echo "bench/run.sh: mvn package -pl $pl -am (tests skipped)" >&2
  # -Dmaven.compiler.proc=full: javac 23+ runs JMH's annotation processor only when asked
  # -Dmaven.source.skip: bin/fuse-example takes the first purefuse-examples-*.jar, which would be -sources.jar
  args=(package dependency:build-classpath -DskipTests -Dmaven.javadoc.skip=true -Dmaven.source.skip=true -Dmaven.compiler.proc=full
        -Dmdep.outputFile=target/cp.txt -pl "$pl" -am)
  mvn -B -q -o "${args[@]}" >&2 || mvn -B -q "${args[@]}" >&2
  rm -f examples/target/*-sources.jar depotfs/target/*-sources.jar
fi

BENCH_WORK=$(mktemp -d /tmp/purefuse-bench.XXXXXX)
export BENCH_WORK
cleanup() {
  # Safety net if the python driver died hard: unmount what it recorded (reverse order), stop its pids.
  if [ -f "$BENCH_WORK/mounts" ]; then
    tac "$BENCH_WORK/mounts" | while read -r m; do
      [ -n "$m" ] && mountpoint -q "$m" && { umount "$m" 2>/dev/null || umount -l "$m"; }
    done
  fi
  if [ -f "$BENCH_WORK/pids" ]; then
    while read -r p; do [ -n "$p" ] && kill "$p" 2>/dev/null || true; done < "$BENCH_WORK/pids"
  fi
  if ! grep -q " $BENCH_WORK" /proc/self/mountinfo; then rm -rf "$BENCH_WORK"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# JMH first (CPU only, ~3 min); bench.py puts its table into the RESULTS.md section.
if [ "${BENCH_JMH:-1}" != 0 ]; then
  BENCH_JMH_MD="$BENCH_WORK/jmh.md" BENCH_BUILD=0 "$ROOT/bench/jmh.sh" "${BENCH_JMH_FILTER:-io.github.purefuse.bench}" \
    ${BENCH_JMH_ARGS:--wi 1 -w 1s -i 3 -r 1s -f 1} >/dev/null || echo "bench/run.sh: JMH failed; continuing without it" >&2
fi
python3 "$ROOT/bench/bench.py" "$@"
