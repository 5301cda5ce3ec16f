#!/usr/bin/env bash
# Shared set-up of the bench commands (source it): root and tool checks, Debian packages, the Maven build.
#   bench_need_root NAME            exit 2 unless root and /dev/fuse exists
#   bench_apt PKG...                install the Debian packages that are missing (apt-get update once if needed)
#   bench_build                     mvn package of depotfs, examples, bench (JMH jar) and bench/peers
#                                   (jnr-fuse server, S3 raw-GET tool) unless BENCH_BUILD=0
#   bench_work NAME                 make and export BENCH_WORK (/tmp/NAME.XXXXXX) and undo on exit what the
#                                   drivers record there: mounts (unmounted in reverse order), pids (killed),
#                                   restore (sysfs values put back), ceph/ (stopped), netns (deleted)
# BENCH_ROOT is the repository root.
BENCH_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

bench_need_root() {
  [ "$(id -u)" = 0 ] || { echo "$1: must run as root (mount, drop_caches, sysfs)" >&2; exit 2; }
  [ -e /dev/fuse ] || { echo "$1: /dev/fuse missing" >&2; exit 2; }
}

bench_apt() {
  local missing=() p
  for p in "$@"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
  [ ${#missing[@]} = 0 ] && return 0
  echo "bench: installing ${missing[*]} (Debian)" >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y "${missing[@]}" >/dev/null 2>&1 || {
    apt-get update >/dev/null 2>&1 && DEBIAN_FRONTEND=noninteractive apt-get install -y "${missing[@]}" >/dev/null 2>&1; } \
    || { echo "bench: could not install ${missing[*]}; the rows that need them are skipped" >&2; return 1; }
}

bench_build() {
  [ "${BENCH_BUILD:-1}" != 0 ] || return 0
  local modules=() m pl args
  for m in depotfs examples bench bench/peers; do [ -f "$BENCH_ROOT/$m/pom.xml" ] && modules+=("$m"); done
  pl=$(IFS=,; echo "${modules[*]}")
  echo "bench: mvn package -pl $pl -am (tests skipped)" >&2
  # -Dmaven.compiler.proc=full: javac 23+ runs JMH's annotation processor only when asked
  # -Dmaven.source.skip: bin/fuse-example takes the first purefuse-examples-*.jar, which would be -sources.jar
  args=(package dependency:build-classpath -DskipTests -Dmaven.javadoc.skip=true -Dmaven.source.skip=true -Dmaven.compiler.proc=full
        -DincludeScope=runtime -Dmdep.outputFile=target/runtime.classpath -pl "$pl" -am)
  (cd "$BENCH_ROOT" && { mvn -B -q -o "${args[@]}" >&2 || mvn -B -q "${args[@]}" >&2; })
  rm -f "$BENCH_ROOT"/examples/target/*-sources.jar "$BENCH_ROOT"/depotfs/target/*-sources.jar
}

bench_work() {
  BENCH_WORK=$(mktemp -d "/tmp/$1.XXXXXX")
  export BENCH_WORK
  trap _bench_cleanup EXIT
  trap 'exit 130' INT TERM
}

_bench_cleanup() {
  set +e   # best effort: every step runs even if one fails
  # Safety net if a python driver died hard: unmount what it recorded (reverse order), stop its pids.
  if [ -f "$BENCH_WORK/mounts" ]; then
    tac "$BENCH_WORK/mounts" | while read -r m; do
      [ -n "$m" ] && mountpoint -q "$m" && { umount "$m" 2>/dev/null || umount -l "$m"; }
    done
  fi
  if [ -f "$BENCH_WORK/pids" ]; then
    while read -r p; do [ -n "$p" ] && kill "$p" 2>/dev/null || true; done < "$BENCH_WORK/pids"
  fi
  if [ -f "$BENCH_WORK/restore" ]; then   # sysfs values a driver changed (enable_uring), put back
    while read -r path old; do [ -n "$path" ] && echo "$old" > "$path" 2>/dev/null || true; done < "$BENCH_WORK/restore"
  fi
  [ -d "$BENCH_WORK/ceph" ] && "$BENCH_ROOT/bench/s3/ceph.sh" stop "$BENCH_WORK/ceph"
  if [ -f "$BENCH_WORK/netns" ]; then
    while read -r ns; do [ -n "$ns" ] && ip netns del "$ns" 2>/dev/null || true; done < "$BENCH_WORK/netns"
  fi
  if ! grep -q " $BENCH_WORK" /proc/self/mountinfo; then rm -rf "$BENCH_WORK"; fi
}
