#!/usr/bin/env bash
# Mint golden FUSE protocol captures from real libfuse 3 servers.
#
# usage: tools/fuse-capture/capture.sh [--out DIR] [--keep-temp] [--only NAME[,NAME...]]
#
# Builds libfuse's own example servers (passthrough_ll, hello_ll) from the Debian
# libfuse3-dev example sources into a temp dir, runs each under
#   strace -f -xx -e read=all -e write=all
# while a script of ordinary commands runs against the mount, and turns every frame
# read from / written to the /dev/fuse fd into a FUSECAP1 file plus a JSON oracle
# (see fusecap.py). Needs root, /dev/fuse, strace, gcc, pkg-config fuse3, python3,
# perl, getfattr/setfattr. Cleans up its mounts and the processes it started in all cases.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
OUT="$REPO/fuse-kernel-channel/src/test/resources/captures"
KEEP=0
ONLY=""
while [ $# -gt 0 ]; do
    case "$1" in
        --out) OUT=$2; shift 2 ;;
        --keep-temp) KEEP=1; shift ;;
        --only) ONLY=$2; shift 2 ;;
        -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
        *) echo "unknown argument: $1" >&2; exit 2 ;;
    esac
done

die() { echo "capture.sh: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "must run as root (mount(2) is done directly by libfuse)"
[ -c /dev/fuse ] || die "/dev/fuse missing"
for t in strace gcc pkg-config python3 perl getfattr setfattr lsattr findmnt; do
    command -v "$t" >/dev/null || die "$t not installed"
done
pkg-config --exists fuse3 || die "libfuse3-dev not installed (pkg-config fuse3)"
EXAMPLES=/usr/share/doc/libfuse3-dev/examples
[ -f "$EXAMPLES/passthrough_ll.c" ] || die "$EXAMPLES/passthrough_ll.c missing"

mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
WORK=$(mktemp -d /tmp/fuse-capture.XXXXXX)
MOUNTS=()      # mountpoints we mounted, in order
PIDS=()        # processes we started (strace wrappers and untraced servers)
STOPPED=()     # servers we may have SIGSTOPped

is_mounted() { findmnt -rn --mountpoint "$1" >/dev/null 2>&1; }

cleanup() {
    local rc=$?
    set +e
    for p in "${STOPPED[@]}"; do kill -CONT "$p" 2>/dev/null; done
    local i
    for (( i=${#MOUNTS[@]}-1; i>=0; i-- )); do
        local m=${MOUNTS[$i]}
        if is_mounted "$m"; then
            umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null
        fi
    done
    for p in "${PIDS[@]}"; do
        for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
        if kill -0 "$p" 2>/dev/null; then
            # strace's child (the server) first, then strace itself; only our own PIDs
            for c in $(cat "/proc/$p/task/$p/children" 2>/dev/null); do kill "$c" 2>/dev/null; done
            kill "$p" 2>/dev/null
        fi
    done
    if [ "$KEEP" = 1 ]; then echo "temp dir kept: $WORK" >&2; else rm -rf "$WORK"; fi
    exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

wait_mounted() { # mountpoint pid
    for _ in $(seq 100); do
        is_mounted "$1" && return 0
        kill -0 "$2" 2>/dev/null || die "server for $1 exited before mounting"
        sleep 0.1
    done
    die "timeout waiting for $1 to be mounted"
}

wait_exit() { # pid
    for _ in $(seq 100); do kill -0 "$1" 2>/dev/null || { wait "$1" 2>/dev/null || true; return 0; }; sleep 0.1; done
    die "process $1 did not exit after unmount"
}

STRACE_OPTS=(-f -qq -s 0 -xx -e signal=none
    -e trace=read,readv,write,writev,splice,vmsplice,tee,openat,open,close,dup,dup2,dup3,pipe2
    -e read=all -e write=all)

# start_traced NAME MOUNTPOINT server-argv...   -> sets TRACED_PID
start_traced() {
    local name=$1 mnt=$2; shift 2
    mkdir -p "$mnt"
    strace "${STRACE_OPTS[@]}" -o "$WORK/$name.strace" -- "$@" \
        >"$WORK/$name.server.log" 2>&1 &
    TRACED_PID=$!
    PIDS+=("$TRACED_PID")
    MOUNTS+=("$mnt")
    wait_mounted "$mnt" "$TRACED_PID"
}

# start_plain NAME MOUNTPOINT server-argv...    -> sets PLAIN_PID (untraced helper server)
start_plain() {
    local name=$1 mnt=$2; shift 2
    mkdir -p "$mnt"
    "$@" >"$WORK/$name.server.log" 2>&1 &
    PLAIN_PID=$!
    PIDS+=("$PLAIN_PID")
    MOUNTS+=("$mnt")
    wait_mounted "$mnt" "$PLAIN_PID"
}

# step DESCRIPTION -- command...   runs one workload command, logs it for the README
STEPS_FILE=""
step() {
    local desc=$1; shift
    [ "$1" = "--" ] && shift
    local cmd="" a
    for a in "$@"; do
        case "$a" in
            *[[:space:]\"\$\;\&\|\(\)\*\<\>]*) cmd+="'${a//\'/\'\\\'\'}' " ;;
            *) cmd+="$a " ;;
        esac
    done
    cmd=$(printf '%s' "$cmd" | tr -s ' \n' ' ' | sed "s#$WORK#\$T#g; s#$HERE#tools/fuse-capture#g")
    printf -- '- %s: `%s`\n' "$desc" "${cmd% }" >>"$STEPS_FILE"
    echo "+ $*" >>"$WORK/workload.log"
    "$@" >>"$WORK/workload.log" 2>&1 || echo "  (exit status $?)" >>"$WORK/workload.log"
}

finish_capture() { # name
    local name=$1
    python3 "$HERE/fusecap.py" from-strace "$WORK/$name.strace" "$OUT/$name.fusecap"
    python3 "$HERE/fusecap.py" crosscheck "$OUT/$name.fusecap" "$WORK/$name.server.log"
    python3 "$HERE/fusecap.py" json "$OUT/$name.fusecap" -o "$OUT/$name.json"
    python3 "$HERE/fusecap.py" stats "$OUT/$name.fusecap" >"$WORK/$name.stats"
    cat "$WORK/$name.stats"
}

wanted() { [ -z "$ONLY" ] || [[ ",$ONLY," == *",$1,"* ]]; }

# ---------------------------------------------------------------------------------------
echo "building libfuse examples in $WORK/bin"
mkdir -p "$WORK/bin"
for ex in passthrough_ll hello_ll passthrough; do
    gcc -Wall $(pkg-config fuse3 --cflags) "$EXAMPLES/$ex.c" -o "$WORK/bin/$ex" \
        $(pkg-config fuse3 --libs)
done
PT="$WORK/bin/passthrough_ll"
HELLO="$WORK/bin/hello_ll"
PTHL="$WORK/bin/passthrough"

make_tree() { # dir
    local s=$1
    mkdir -p "$s/sub/deep" "$s/dir1000" "$s/forget"
    printf 'Hello from the purefuse capture tool\n' >"$s/hello.txt"
    printf 'deep file\n' >"$s/sub/deep/file.txt"
    printf 'single\n' >"$s/single.txt"
    python3 - "$s/big.bin" <<'EOF'
import random, sys
open(sys.argv[1], "wb").write(random.Random(20240101).randbytes(3 * 1024 * 1024))
EOF
    (cd "$s/dir1000" && for i in $(seq -w 0 999); do : >"entry-$i"; done)
    (cd "$s/forget" && for i in $(seq -w 0 19); do printf '%s\n' "$i" >"f$i"; done)
    ln -s hello.txt "$s/link"
    printf 'file with user xattrs\n' >"$s/xattr.txt"
    setfattr -n user.color -v blue "$s/xattr.txt"
    setfattr -n user.comment -v "golden fixture" "$s/xattr.txt"
    find "$s" -exec touch -h -d @1700000000 {} +
}

STEPS_DIR="$WORK/steps"
mkdir -p "$STEPS_DIR"

# ---------------------------------------------------------------------------------------
# 1. passthrough_ll: single-threaded, the main read-only workload
capture_passthrough_ll() {
    local name=passthrough_ll S="$WORK/pt-src$1" M="$WORK/pt-mnt$1"
    STEPS_FILE="$STEPS_DIR/$name.md"; : >"$STEPS_FILE"
    make_tree "$S"
    printf -- '- server: `passthrough_ll -d -s -f -o xattr -o source=$T/pt-src%s $T/pt-mnt%s` (under strace)\n' "$1" "$1" >>"$STEPS_FILE"
    start_traced "$name" "$M" "$PT" -d -s -f -o xattr -o "source=$S" "$M"
    step "stat the root" -- stat "$M"
    step "path walk (LOOKUP per component)" -- stat "$M/sub/deep/file.txt"
    step "long listing" -- ls -l "$M"
    step "unsorted listing of 1000 entries" -- ls -f "$M/dir1000"
    step "stat a file" -- stat "$M/hello.txt"
    step "statx with btime" -- stat --format=%W "$M/hello.txt"
    step "cat" -- cat "$M/hello.txt"
    step "dd 3 MiB with 1 MiB blocks" -- dd if="$M/big.bin" of=/dev/null bs=1M
    step "find" -- find "$M"
    step "readlink" -- readlink "$M/link"
    step "getfattr -d" -- getfattr -d "$M/xattr.txt"
    step "xattr size probes, ERANGE, ENODATA" -- python3 "$HERE/workload.py" xattr-errors "$M/xattr.txt"
    step "df" -- df "$M"
    step "python os.scandir" -- python3 "$HERE/workload.py" scandir "$M/dir1000"
    step "perl telldir/seekdir" -- perl -e '
        opendir(my $d, $ARGV[0]) or die "opendir: $!";
        my @a = map { scalar readdir($d) } 1..700;
        my $pos = telldir($d);
        my @b = map { scalar readdir($d) } 1..5;
        seekdir($d, $pos);
        my @c = map { scalar readdir($d) } 1..5;
        die "seekdir mismatch: @b / @c" unless "@b" eq "@c";
        closedir($d); print "telldir=$pos after 700 entries; seekdir back ok: @c\n";' "$M/dir1000"
    step "200 x open/close" -- python3 "$HERE/workload.py" open-close "$M/hello.txt" 200
    step "access, lseek SEEK_DATA/HOLE, fsync, poll, flock, fsync(dir)" -- python3 "$HERE/workload.py" misc "$M/hello.txt" "$M/sub"
    step "chdir into the mount" -- sh -c "cd '$M/sub/deep' && cat file.txt"
    step "lsattr (ioctl)" -- lsattr "$M/hello.txt"
    step "negative lookup" -- stat "$M/does-not-exist"
    step "delete a looked-up file in the backing dir, revalidate (FORGET)" -- python3 "$HERE/workload.py" forget "$M/single.txt" "$S/single.txt"
    step "delete a looked-up directory of 20 files in the backing dir, revalidate (BATCH_FORGET)" -- python3 "$HERE/workload.py" forget "$M/forget" "$S/forget"
    step "unmount" -- umount "$M"
    wait_exit "$TRACED_PID"
    finish_capture "$name"
}

# ---------------------------------------------------------------------------------------
# 2. hello_ll: the smallest libfuse low-level server (many ops unimplemented -> ENOSYS)
capture_hello_ll() {
    local name=hello_ll M="$WORK/hello-mnt$1"
    STEPS_FILE="$STEPS_DIR/$name.md"; : >"$STEPS_FILE"
    printf -- '- server: `hello_ll -d -s -f $T/hello-mnt%s` (under strace)\n' "$1" >>"$STEPS_FILE"
    start_traced "$name" "$M" "$HELLO" -d -s -f "$M"
    step "stat the root" -- stat "$M"
    step "long listing" -- ls -la "$M"
    step "cat" -- cat "$M/hello"
    step "stat a file" -- stat "$M/hello"
    step "df (default statfs reply)" -- df "$M"
    step "getfattr (ENOSYS)" -- getfattr -d "$M/hello"
    step "negative lookup" -- stat "$M/nope"
    step "unmount" -- umount "$M"
    wait_exit "$TRACED_PID"
    finish_capture "$name"
}

# ---------------------------------------------------------------------------------------
# 3. interrupt: multi-threaded passthrough_ll (cache=never -> direct I/O, so READ is a
#    synchronous, interruptible request) over a tree that contains a hello_ll mount.
#    The client SIGSTOPs that inner hello_ll, so the outer READ blocks inside the server,
#    SIGALRM hits the reader, the kernel sends INTERRUPT, and a second libfuse worker
#    thread reads it. A single-threaded server can never read an INTERRUPT for the
#    request it is busy with: the kernel drops the queued INTERRUPT when the reply lands.
capture_interrupt() {
    local name=interrupt S="$WORK/int-src$1" M="$WORK/int-mnt$1"
    STEPS_FILE="$STEPS_DIR/$name.md"; : >"$STEPS_FILE"
    mkdir -p "$S/slow"
    start_plain hello_inner "$S/slow" "$HELLO" -s -f "$S/slow"
    local inner=$PLAIN_PID
    STOPPED+=("$inner")
    printf -- '- inner server (not traced): `hello_ll -s -f $T/int-src%s/slow`\n' "$1" >>"$STEPS_FILE"
    printf -- '- server: `passthrough_ll -d -f -o cache=never -o source=$T/int-src%s $T/int-mnt%s` (multi-threaded, under strace)\n' "$1" "$1" >>"$STEPS_FILE"
    start_traced "$name" "$M" "$PT" -d -f -o cache=never -o "source=$S" "$M"
    step "read interrupted by SIGALRM while the backing server is stopped" -- \
        python3 "$HERE/workload.py" interrupted-read "$M/slow/hello" "$inner" 3
    step "unmount" -- umount "$M"
    wait_exit "$TRACED_PID"
    umount "$S/slow"
    wait_exit "$inner"
    finish_capture "$name"
}

# ---------------------------------------------------------------------------------------
# 4. direct_io: passthrough_ll -o cache=never (FOPEN_DIRECT_IO, entry/attr timeouts 0):
#    READs at the application's size (1 MiB frames), short READ at EOF, revalidating LOOKUPs.
capture_direct_io() {
    local name=direct_io S="$WORK/dio-src$1" M="$WORK/dio-mnt$1"
    STEPS_FILE="$STEPS_DIR/$name.md"; : >"$STEPS_FILE"
    mkdir -p "$S/sub"
    python3 -c 'import random, sys; open(sys.argv[1], "wb").write(random.Random(20240102).randbytes(1536 * 1024))' "$S/big.bin"
    printf 'small\n' >"$S/sub/small.txt"
    find "$S" -exec touch -h -d @1700000000 {} +
    printf -- '- server: `passthrough_ll -d -s -f -o cache=never -o source=$T/dio-src%s $T/dio-mnt%s` (under strace)\n' "$1" "$1" >>"$STEPS_FILE"
    start_traced "$name" "$M" "$PT" -d -s -f -o cache=never -o "source=$S" "$M"
    step "stat" -- stat "$M/big.bin"
    step "dd 1.5 MiB with 1 MiB blocks (direct I/O)" -- dd if="$M/big.bin" of=/dev/null bs=1M
    step "cat a small file twice (no cache: LOOKUP/OPEN/READ again)" -- sh -c "cat '$M/sub/small.txt'; cat '$M/sub/small.txt'"
    step "long listing" -- ls -l "$M/sub"
    step "unmount" -- umount "$M"
    wait_exit "$TRACED_PID"
    finish_capture "$name"
}

# ---------------------------------------------------------------------------------------
# 5. passthrough_hl: libfuse's high-level (path-based) passthrough example: what the common
#    libfuse high-level API puts on the wire (zero entry/attr timeouts, use_ino, readdirplus
#    where the library asks for it) for ls -l, stat, cat, readlink of a small tree.
capture_passthrough_hl() {
    local name=passthrough_hl S="$WORK/hl-src$1" M="$WORK/hl-mnt$1"
    STEPS_FILE="$STEPS_DIR/$name.md"; : >"$STEPS_FILE"
    mkdir -p "$S/sub"
    printf 'high level\n' >"$S/hello.txt"
    printf 'nested\n' >"$S/sub/nested.txt"
    ln -s hello.txt "$S/link"
    find "$S" -exec touch -h -d @1700000000 {} +
    printf -- '- server: `passthrough -d -s -f -o modules=subdir,subdir=$T/hl-src%s $T/hl-mnt%s` (under strace)\n' "$1" "$1" >>"$STEPS_FILE"
    start_traced "$name" "$M" "$PTHL" -d -s -f -o modules=subdir -o "subdir=$S" "$M"
    step "long listing" -- ls -l "$M"
    step "long listing of a subdirectory" -- ls -l "$M/sub"
    step "stat a file" -- stat "$M/hello.txt"
    step "cat" -- cat "$M/hello.txt" "$M/sub/nested.txt"
    step "readlink" -- readlink "$M/link"
    step "negative lookup" -- stat "$M/nope"
    step "unmount" -- umount "$M"
    wait_exit "$TRACED_PID"
    finish_capture "$name"
}

# capture_with_retry NAME REQUIRED_OPCODE...
# The machine is shared: other processes (e.g. a benchmark dropping caches) can make the
# kernel evict inodes at any time, so FORGETs may arrive merged into one BATCH_FORGET.
# A capture that lacks one of its required opcodes is minted again (at most 3 attempts).
capture_with_retry() {
    local name=$1; shift
    local attempt
    for attempt in 1 2 3; do
        "capture_$name" "$attempt"
        if python3 "$HERE/fusecap.py" require "$OUT/$name.fusecap" "$@"; then
            printf -- '- accepted on attempt %s (required request opcodes: %s)\n' "$attempt" "$*" >>"$STEPS_FILE"
            return 0
        fi
        echo "capture $name lacks one of: $* (attempt $attempt)" >&2
    done
    die "capture $name never contained all of: $*"
}

wanted passthrough_ll && capture_with_retry passthrough_ll FORGET BATCH_FORGET LOOKUP STATX
wanted hello_ll && capture_with_retry hello_ll INIT
wanted interrupt && capture_with_retry interrupt INTERRUPT
wanted direct_io && capture_with_retry direct_io READ
wanted passthrough_hl && capture_with_retry passthrough_hl READDIRPLUS READLINK

echo "workload log:"; sed 's/^/  /' "$WORK/workload.log"

# ---------------------------------------------------------------------------------------
# README for the fixtures
if [ -z "$ONLY" ]; then
    python3 "$HERE/make_readme.py" --captures "$OUT" --steps "$STEPS_DIR" \
        --workload-log "$WORK/workload.log" >"$OUT/README.md"
    echo "wrote $OUT/README.md"
else
    echo "README.md not rewritten (--only): it describes every capture, so run without --only to regenerate it;" \
        "a new capture also goes into make_readme.py's CAPTURES and GoldenCaptureTest.CAPTURES" >&2
fi
