#!/usr/bin/env bash
# Mints catalog.fusecap: mounts catalog.json with `fuse-example json --record`, runs a few real tools
# over the mount, unmounts. Root (or fusermount3) needed. Run from anywhere:
#   examples/src/test/resources/recordings/mint.sh
# The recording is replayed by CatalogRecordingTest (no kernel needed); see the site's testing guide.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../../../../.." && pwd)"
mnt="$(mktemp -d)"
out="$here/catalog.fusecap"
"$repo/bin/fuse-example" json "$here/catalog.json" "$mnt" --transport dev --record "$out" &
pid=$!
trap 'umount "$mnt" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; rmdir "$mnt"' EXIT
for _ in $(seq 100); do grep -q " $mnt " /proc/mounts && break; sleep 0.1; done
grep -q " $mnt " /proc/mounts || { echo "mint.sh: the mount did not come up" >&2; exit 1; }
(cd "$mnt" && find . | sort && cat readme version datasets/0/id datasets/1/tags/0 && ls -l owners && stat -c '%n %s' name) >/dev/null
umount "$mnt"
wait "$pid"
trap 'rmdir "$mnt"' EXIT
echo "wrote $out ($(stat -c %s "$out") bytes)"
