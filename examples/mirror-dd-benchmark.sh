#!/usr/bin/env bash
# Cold sequential read of one big file: directly, through `fuse-example mirror`, and through
# `fuse-example mirror --passthrough`, each with `dd bs=1M` after dropping the page cache; 3 rounds,
# interleaved; prints each run and the median. Needs root (drop_caches, passthrough).
#   examples/mirror-dd-benchmark.sh [FILE]    (default: a 1 GiB random file in /var/tmp, made once)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
file="${1:-/var/tmp/purefuse-examples-bench/1g.bin}"
if [[ ! -f "$file" ]]; then
  mkdir -p "$(dirname "$file")"
  head -c 1073741824 /dev/urandom > "$file"
fi
dir="$(dirname "$(realpath "$file")")"
name="$(basename "$file")"
work="$(mktemp -d /tmp/mirror-dd.XXXXXX)"
mkdir "$work/plain" "$work/passthrough"
pids=()
cleanup() {
  umount "$work/plain" "$work/passthrough" 2>/dev/null || true
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  rmdir "$work/plain" "$work/passthrough" "$work" 2>/dev/null || true
}
trap cleanup EXIT
"$root/bin/fuse-example" --help > /dev/null   # builds the module once, before two launches race to
"$root/bin/fuse-example" mirror "$dir" "$work/plain" & pids+=($!)
"$root/bin/fuse-example" mirror "$dir" "$work/passthrough" --passthrough & pids+=($!)
for m in plain passthrough; do
  for _ in $(seq 100); do mountpoint -q "$work/$m" && break; sleep 0.2; done
done
dev="$(stat -c '%Hd:%Ld' "$work/plain")"
echo "file: $file ($(stat -c %s "$file") bytes); fuse read_ahead_kb: $(cat /sys/class/bdi/$dev/read_ahead_kb)" \
     "source device read_ahead_kb: $(cat /sys/class/bdi/$(stat -c '%Hd:%Ld' "$file")/read_ahead_kb 2>/dev/null || echo '?')"
# warm-up (not counted): the servers' JIT and buffer pools
for m in plain passthrough; do dd if="$work/$m/$name" of=/dev/null bs=1M count=256 status=none; done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
declare -A results
for round in 1 2 3; do
  for target in direct plain passthrough; do
    case "$target" in
      direct) path="$file" ;;
      *) path="$work/$target/$name" ;;
    esac
    sync
    echo 3 > /proc/sys/vm/drop_caches
    # dd prints "... copied, 1.23 s, 870 MB/s"; keep the MB/s (10^6 bytes per second)
    line="$(LC_ALL=C dd if="$path" of=/dev/null bs=1M 2>&1 | tail -1)"
    rate="$(echo "$line" | awk -F', ' '{print $NF}')"
    echo "round $round  $target  $line"
    results[$target]+="$(echo "$rate" | awk '{v=$1; if ($2 ~ /^GB/) v*=1000; print v}') "
  done
done
for target in direct plain passthrough; do
  median="$(echo ${results[$target]} | tr ' ' '\n' | sort -n | sed -n 2p)"
  echo "median  $target  $median MB/s"
done
