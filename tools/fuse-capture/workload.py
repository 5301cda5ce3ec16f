#!/usr/bin/env python3
"""Small client programs that capture.sh runs against a FUSE mount.

Each subcommand does real system calls on files of the mount and prints what it saw,
so the capture log shows the effect the traffic had on user space.

    xattr-errors FILE         getxattr/listxattr size probes, ERANGE and ENODATA (ctypes)
    scandir DIR               os.scandir() and count the entries
    open-close FILE N         N x open(O_RDONLY)/close
    misc FILE DIR             access, lseek SEEK_DATA/SEEK_HOLE, fsync, fsync(dir), poll,
                              flock, fstat
    forget PATH SRCPATH       stat PATH (and, for a directory, each child) on the mount, delete
                              SRCPATH (its backing file/tree of a passthrough mount, not through
                              FUSE), wait for the entry timeout, stat PATH again: the revalidating
                              LOOKUP fails with ENOENT, the kernel drops the dentries and evicts
                              the inodes, and sends FORGET (one) or BATCH_FORGET (many)
    interrupted-read FILE PID STOP_S
                              open FILE, SIGSTOP the FUSE server PID that backs FILE's data
                              (a process capture.sh started), arm SIGALRM after 1 s, read();
                              a child sends SIGCONT to PID after STOP_S seconds
"""

import ctypes
import ctypes.util
import errno
import fcntl
import os
import select
import shutil
import signal
import sys
import time

libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
libc.getxattr.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_void_p, ctypes.c_size_t]
libc.getxattr.restype = ctypes.c_ssize_t
libc.listxattr.argtypes = [ctypes.c_char_p, ctypes.c_void_p, ctypes.c_size_t]
libc.listxattr.restype = ctypes.c_ssize_t


def c_getxattr(path, name, size):
    buf = ctypes.create_string_buffer(max(size, 1))
    n = libc.getxattr(path.encode(), name.encode(), buf if size else None, size)
    if n < 0:
        e = ctypes.get_errno()
        return "getxattr(%s, size=%d) -> %s" % (name, size, errno.errorcode[e])
    return "getxattr(%s, size=%d) -> %d %r" % (name, size, n, buf.raw[:n] if size else b"")


def c_listxattr(path, size):
    buf = ctypes.create_string_buffer(max(size, 1))
    n = libc.listxattr(path.encode(), buf if size else None, size)
    if n < 0:
        e = ctypes.get_errno()
        return "listxattr(size=%d) -> %s" % (size, errno.errorcode[e])
    return "listxattr(size=%d) -> %d %r" % (size, n, buf.raw[:n] if size else b"")


def xattr_errors(path):
    print(c_getxattr(path, "user.color", 0))      # size probe
    print(c_getxattr(path, "user.color", 2))      # too small -> ERANGE
    print(c_getxattr(path, "user.color", 256))    # value
    print(c_getxattr(path, "user.missing", 64))   # ENODATA
    print(c_listxattr(path, 0))                   # size probe
    print(c_listxattr(path, 3))                   # too small -> ERANGE
    print(c_listxattr(path, 1024))


def scandir(path):
    n = 0
    with os.scandir(path) as it:
        for e in it:
            n += 1
            e.is_file(follow_symlinks=False)  # d_type, no stat
    print("scandir: %d entries" % n)


def open_close(path, count):
    for _ in range(count):
        fd = os.open(path, os.O_RDONLY)
        os.close(fd)
    print("open/close x%d done" % count)


def misc(path, dirpath):
    print("access(R_OK) ->", os.access(path, os.R_OK))
    fd = os.open(path, os.O_RDONLY)
    try:
        try:
            print("lseek SEEK_DATA ->", os.lseek(fd, 0, os.SEEK_DATA))
            print("lseek SEEK_HOLE ->", os.lseek(fd, 0, os.SEEK_HOLE))
        except OSError as e:
            print("lseek ->", e)
        os.fsync(fd)
        print("fsync ok")
        p = select.poll()
        p.register(fd, select.POLLIN)
        print("poll ->", p.poll(0))
        fcntl.flock(fd, fcntl.LOCK_SH)
        fcntl.flock(fd, fcntl.LOCK_UN)
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        fcntl.flock(fd, fcntl.LOCK_UN)
        print("flock ok")
        print("fstat size ->", os.fstat(fd).st_size)
    finally:
        os.close(fd)
    dfd = os.open(dirpath, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(dfd)
        print("fsync(dir) ok")
    finally:
        os.close(dfd)


def forget(path, srcpath):
    if os.path.isdir(path):
        names = sorted(os.listdir(path))
        for n in names:
            os.stat(os.path.join(path, n))  # make sure every child has a dentry
        shutil.rmtree(srcpath)  # the backing tree, not through FUSE
    else:
        names = [os.path.basename(path)]
        os.stat(path)
        os.unlink(srcpath)
    time.sleep(1.3)  # passthrough_ll entry timeout is 1.0 s
    try:
        os.stat(path)
        res = "still there"
    except FileNotFoundError:
        res = "ENOENT"
    print("forget: %s (%d names) -> revalidation %s" % (os.path.basename(path), len(names), res))


def interrupted_read(path, pid, stop_s):
    fd = os.open(path, os.O_RDONLY)
    got = []
    signal.signal(signal.SIGALRM, lambda s, f: got.append(s))
    os.kill(pid, signal.SIGSTOP)
    child = os.fork()
    if child == 0:
        try:
            time.sleep(stop_s)
        finally:
            os.kill(pid, signal.SIGCONT)
            os._exit(0)
    signal.setitimer(signal.ITIMER_REAL, 1.0)
    t0 = time.monotonic()
    try:
        data = os.read(fd, 4096)
        res = "%d bytes" % len(data)
    except OSError as e:
        res = errno.errorcode[e.errno]
    dt = time.monotonic() - t0
    os.waitpid(child, 0)
    os.close(fd)
    print("read -> %s after %.1f s, SIGALRM delivered: %s" % (res, dt, bool(got)))


def main(argv):
    cmd = argv[0]
    if cmd == "xattr-errors":
        xattr_errors(argv[1])
    elif cmd == "scandir":
        scandir(argv[1])
    elif cmd == "open-close":
        open_close(argv[1], int(argv[2]))
    elif cmd == "misc":
        misc(argv[1], argv[2])
    elif cmd == "forget":
        forget(argv[1], argv[2])
    elif cmd == "interrupted-read":
        interrupted_read(argv[1], int(argv[2]), float(argv[3]))
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
