#!/usr/bin/env python3
"""FUSECAP1 capture files: build them from strace logs, decode them, dump them.

This is test tooling for purefuse. It is an *independent* decoder of the Linux FUSE
wire protocol (7.45, little-endian x86_64) written with the `struct` module only, so
that the Java codec can be checked against it (golden tests).

FUSECAP1 file format (byte exact):
    b"FUSECAP1"                                 8 ASCII bytes
    then one record per frame:
        u8   direction   0 = kernel -> server (one read() of /dev/fuse)
                         1 = server -> kernel (one write()/writev() to /dev/fuse)
        u32  length      little-endian, number of frame bytes that follow
        u8[length]       the frame exactly as read or written

Subcommands:
    from-strace TRACE OUT.fusecap   turn an `strace -f -xx -e read=all -e write=all` log of a
                                    libfuse server into a FUSECAP1 file (validates every frame)
    json CAPTURE [-o OUT.json]      decode every frame into the JSON oracle
    dump CAPTURE                    one human-readable line per frame
    stats CAPTURE                   frame totals and request counts by opcode
    validate CAPTURE                check the container and every frame's length field
    require CAPTURE OPCODE...       exit 1 unless every named request opcode occurs
    crosscheck CAPTURE SERVER_LOG   compare every frame's header with libfuse's -d log
"""

import argparse
import errno as errno_mod
import hashlib
import json
import re
import struct
import sys
from collections import Counter, OrderedDict

MAGIC = b"FUSECAP1"
K2S = 0  # kernel -> server
S2K = 1  # server -> kernel

# --------------------------------------------------------------------------------------
# Opcodes (include/uapi/linux/fuse.h, minor 45)
# --------------------------------------------------------------------------------------
OPCODES = {
    1: "LOOKUP", 2: "FORGET", 3: "GETATTR", 4: "SETATTR", 5: "READLINK", 6: "SYMLINK",
    8: "MKNOD", 9: "MKDIR", 10: "UNLINK", 11: "RMDIR", 12: "RENAME", 13: "LINK",
    14: "OPEN", 15: "READ", 16: "WRITE", 17: "STATFS", 18: "RELEASE", 20: "FSYNC",
    21: "SETXATTR", 22: "GETXATTR", 23: "LISTXATTR", 24: "REMOVEXATTR", 25: "FLUSH",
    26: "INIT", 27: "OPENDIR", 28: "READDIR", 29: "RELEASEDIR", 30: "FSYNCDIR",
    31: "GETLK", 32: "SETLK", 33: "SETLKW", 34: "ACCESS", 35: "CREATE", 36: "INTERRUPT",
    37: "BMAP", 38: "DESTROY", 39: "IOCTL", 40: "POLL", 41: "NOTIFY_REPLY",
    42: "BATCH_FORGET", 43: "FALLOCATE", 44: "READDIRPLUS", 45: "RENAME2", 46: "LSEEK",
    47: "COPY_FILE_RANGE", 48: "SETUPMAPPING", 49: "REMOVEMAPPING", 50: "SYNCFS",
    51: "TMPFILE", 52: "STATX", 53: "COPY_FILE_RANGE_64", 4096: "CUSE_INIT",
}
NO_REPLY_OPCODES = {2, 41, 42}  # FORGET, NOTIFY_REPLY, BATCH_FORGET

NOTIFY_CODES = {
    1: "POLL", 2: "INVAL_INODE", 3: "INVAL_ENTRY", 4: "STORE", 5: "RETRIEVE", 6: "DELETE",
    7: "RESEND", 8: "INC_EPOCH", 9: "PRUNE",
}

INIT_FLAG_NAMES = [
    "ASYNC_READ", "POSIX_LOCKS", "FILE_OPS", "ATOMIC_O_TRUNC", "EXPORT_SUPPORT",
    "BIG_WRITES", "DONT_MASK", "SPLICE_WRITE", "SPLICE_MOVE", "SPLICE_READ", "FLOCK_LOCKS",
    "HAS_IOCTL_DIR", "AUTO_INVAL_DATA", "DO_READDIRPLUS", "READDIRPLUS_AUTO", "ASYNC_DIO",
    "WRITEBACK_CACHE", "NO_OPEN_SUPPORT", "PARALLEL_DIROPS", "HANDLE_KILLPRIV", "POSIX_ACL",
    "ABORT_ERROR", "MAX_PAGES", "CACHE_SYMLINKS", "NO_OPENDIR_SUPPORT",
    "EXPLICIT_INVAL_DATA", "MAP_ALIGNMENT", "SUBMOUNTS", "HANDLE_KILLPRIV_V2",
    "SETXATTR_EXT", "INIT_EXT", "INIT_RESERVED",
    "SECURITY_CTX", "HAS_INODE_DAX", "CREATE_SUPP_GROUP", "HAS_EXPIRE_ONLY",
    "DIRECT_IO_ALLOW_MMAP", "PASSTHROUGH", "NO_EXPORT_SUPPORT", "HAS_RESEND", "ALLOW_IDMAP",
    "OVER_IO_URING", "REQUEST_TIMEOUT", "HAS_IO_URING_BUFPOOL", "HAS_SYNCFS",
]
FOPEN_NAMES = ["DIRECT_IO", "KEEP_CACHE", "NONSEEKABLE", "CACHE_DIR", "STREAM", "NOFLUSH",
               "PARALLEL_DIRECT_WRITES", "PASSTHROUGH", "IO_URING_ZERO_COPY"]


def flag_names(value, names):
    return [names[i] if i < len(names) else "BIT%d" % i
            for i in range(64) if value >> i & 1]


def errno_name(err):
    """Name of a negative errno as used in out_header.error."""
    if err == 0:
        return None
    return errno_mod.errorcode.get(-err, "E%d" % -err)


# --------------------------------------------------------------------------------------
# Struct layouts (names and offsets as in fuse_kernel.h 7.45; sizes checked below)
# --------------------------------------------------------------------------------------
class S:
    def __init__(self, name, fmt, fields, size):
        self.name, self.fmt, self.fields = name, "<" + fmt, fields
        self.size = struct.calcsize(self.fmt)
        assert self.size == size, (name, self.size, size)
        assert len(fields) == len(struct.unpack(self.fmt, bytes(self.size))), name

    def unpack(self, buf, off=0):
        if off + self.size > len(buf):
            raise DecodeError("%s needs %d bytes at offset %d, frame has %d"
                              % (self.name, self.size, off, len(buf)))
        vals = struct.unpack_from(self.fmt, buf, off)
        d = OrderedDict()
        for k, v in zip(self.fields, vals):
            if k.startswith("-"):  # reserved array slot we do not report
                continue
            d[k] = v
        return d


class DecodeError(Exception):
    pass


IN_HEADER = S("fuse_in_header", "IIQQIIIHH",
              ["len", "opcode", "unique", "nodeid", "uid", "gid", "pid", "total_extlen",
               "padding"], 40)
OUT_HEADER = S("fuse_out_header", "IiQ", ["len", "error", "unique"], 16)
ATTR = S("fuse_attr", "QQQQQQIIIIIIIIII",
         ["ino", "size", "blocks", "atime", "mtime", "ctime", "atimensec", "mtimensec",
          "ctimensec", "mode", "nlink", "uid", "gid", "rdev", "blksize", "flags"], 88)
ENTRY_OUT_HEAD = S("fuse_entry_out(head)", "QQQQII",
                   ["nodeid", "generation", "entry_valid", "attr_valid", "entry_valid_nsec",
                    "attr_valid_nsec"], 40)
ATTR_OUT_HEAD = S("fuse_attr_out(head)", "QII", ["attr_valid", "attr_valid_nsec", "dummy"], 16)
OPEN_IN = S("fuse_open_in", "II", ["flags", "open_flags"], 8)
OPEN_OUT = S("fuse_open_out", "QIi", ["fh", "open_flags", "backing_id"], 16)
KSTATFS = S("fuse_kstatfs", "QQQQQIIII6I",
            ["blocks", "bfree", "bavail", "files", "ffree", "bsize", "namelen", "frsize",
             "padding"] + ["-spare"] * 6, 80)
INIT_IN = S("fuse_init_in", "IIIII11I",
            ["major", "minor", "max_readahead", "flags", "flags2"] + ["-unused"] * 11, 64)
INIT_OUT = S("fuse_init_out", "IIIIHHIIHHIIH11H",
             ["major", "minor", "max_readahead", "flags", "max_background",
              "congestion_threshold", "max_write", "time_gran", "max_pages", "map_alignment",
              "flags2", "max_stack_depth", "request_timeout"] + ["-unused"] * 11, 64)
GETATTR_IN = S("fuse_getattr_in", "IIQ", ["getattr_flags", "dummy", "fh"], 16)
READ_IN = S("fuse_read_in", "QQIIQII",
            ["fh", "offset", "size", "read_flags", "lock_owner", "flags", "padding"], 40)
WRITE_IN = S("fuse_write_in", "QQIIQII",
             ["fh", "offset", "size", "write_flags", "lock_owner", "flags", "padding"], 40)
WRITE_OUT = S("fuse_write_out", "II", ["size", "padding"], 8)
RELEASE_IN = S("fuse_release_in", "QIIQ", ["fh", "flags", "release_flags", "lock_owner"], 24)
FLUSH_IN = S("fuse_flush_in", "QIIQ", ["fh", "unused", "padding", "lock_owner"], 24)
FORGET_IN = S("fuse_forget_in", "Q", ["nlookup"], 8)
BATCH_FORGET_IN = S("fuse_batch_forget_in", "II", ["count", "dummy"], 8)
FORGET_ONE = S("fuse_forget_one", "QQ", ["nodeid", "nlookup"], 16)
GETXATTR_IN = S("fuse_getxattr_in", "II", ["size", "padding"], 8)
GETXATTR_OUT = S("fuse_getxattr_out", "II", ["size", "padding"], 8)
SETXATTR_IN = S("fuse_setxattr_in", "IIII", ["size", "flags", "setxattr_flags", "padding"], 16)
SETXATTR_IN_COMPAT = S("fuse_setxattr_in(compat)", "II", ["size", "flags"], 8)
ACCESS_IN = S("fuse_access_in", "II", ["mask", "padding"], 8)
STATX_IN = S("fuse_statx_in", "IIQII",
             ["getattr_flags", "reserved", "fh", "sx_flags", "sx_mask"], 24)
STATX_OUT_HEAD = S("fuse_statx_out(head)", "QII2Q",
                   ["attr_valid", "attr_valid_nsec", "flags", "-spare", "-spare"], 32)
STATX = S("fuse_statx(head)", "IIQIIIHHQQQQ",
          ["mask", "blksize", "attributes", "nlink", "uid", "gid", "mode", "-spare0", "ino",
           "size", "blocks", "attributes_mask"], 64)
SX_TIME = S("fuse_sx_time", "qIi", ["tv_sec", "tv_nsec", "-reserved"], 16)
STATX_TAIL = S("fuse_statx(tail)", "IIII14Q",
               ["rdev_major", "rdev_minor", "dev_major", "dev_minor"] + ["-spare2"] * 14, 128)
LSEEK_IN = S("fuse_lseek_in", "QQII", ["fh", "offset", "whence", "padding"], 24)
LSEEK_OUT = S("fuse_lseek_out", "Q", ["offset"], 8)
FSYNC_IN = S("fuse_fsync_in", "QII", ["fh", "fsync_flags", "padding"], 16)
POLL_IN = S("fuse_poll_in", "QQII", ["fh", "kh", "flags", "events"], 24)
POLL_OUT = S("fuse_poll_out", "II", ["revents", "padding"], 8)
IOCTL_IN = S("fuse_ioctl_in", "QIIQII", ["fh", "flags", "cmd", "arg", "in_size", "out_size"], 32)
IOCTL_OUT = S("fuse_ioctl_out", "iIII", ["result", "flags", "in_iovs", "out_iovs"], 16)
FILE_LOCK = S("fuse_file_lock", "QQII", ["start", "end", "type", "pid"], 24)
LK_IN_HEAD = S("fuse_lk_in(head)", "QQ", ["fh", "owner"], 16)
LK_IN_TAIL = S("fuse_lk_in(tail)", "II", ["lk_flags", "padding"], 8)
INTERRUPT_IN = S("fuse_interrupt_in", "Q", ["unique"], 8)
SETATTR_IN = S("fuse_setattr_in", "IIQQQQQQIIIIIIII",
               ["valid", "padding", "fh", "size", "lock_owner", "atime", "mtime", "ctime",
                "atimensec", "mtimensec", "ctimensec", "mode", "unused4", "uid", "gid",
                "unused5"], 88)
MKNOD_IN = S("fuse_mknod_in", "IIII", ["mode", "rdev", "umask", "padding"], 16)
MKDIR_IN = S("fuse_mkdir_in", "II", ["mode", "umask"], 8)
RENAME_IN = S("fuse_rename_in", "Q", ["newdir"], 8)
RENAME2_IN = S("fuse_rename2_in", "QII", ["newdir", "flags", "padding"], 16)
LINK_IN = S("fuse_link_in", "Q", ["oldnodeid"], 8)
CREATE_IN = S("fuse_create_in", "IIII", ["flags", "mode", "umask", "open_flags"], 16)
FALLOCATE_IN = S("fuse_fallocate_in", "QQQII", ["fh", "offset", "length", "mode", "padding"], 32)
COPY_FILE_RANGE_IN = S("fuse_copy_file_range_in", "QQQQQQQ",
                       ["fh_in", "off_in", "nodeid_out", "fh_out", "off_out", "len", "flags"], 56)
BMAP_IN = S("fuse_bmap_in", "QII", ["block", "blocksize", "padding"], 16)
BMAP_OUT = S("fuse_bmap_out", "Q", ["block"], 8)
NOTIFY_RETRIEVE_IN = S("fuse_notify_retrieve_in", "QQIIQQ",
                       ["dummy1", "offset", "size", "dummy2", "dummy3", "dummy4"], 40)
DIRENT = S("fuse_dirent(head)", "QQII", ["ino", "off", "namelen", "type"], 24)

HEX_LIMIT = 4096  # byte strings up to this length are also given as hex in the JSON


# --------------------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------------------
def text(b):
    """Bytes as a JSON string (UTF-8; invalid bytes become \\xNN escapes)."""
    return b.decode("utf-8", errors="backslashreplace")


def name_field(b):
    d = OrderedDict(name=text(b))
    try:
        b.decode("utf-8")
    except UnicodeDecodeError:
        d["name_hex"] = b.hex()
    return d


def cstring(buf, off, what="name"):
    """NUL-terminated string at off; returns (bytes, next offset)."""
    end = buf.find(b"\0", off)
    if end < 0:
        raise DecodeError("%s at offset %d is not NUL-terminated" % (what, off))
    return buf[off:end], end + 1


def blob(b):
    d = OrderedDict(data_len=len(b), sha256=hashlib.sha256(b).hexdigest())
    if len(b) <= HEX_LIMIT:
        d["data_hex"] = b.hex()
    return d


def attr_at(buf, off):
    return ATTR.unpack(buf, off)


def entry_out_at(buf, off):
    d = ENTRY_OUT_HEAD.unpack(buf, off)
    d["attr"] = attr_at(buf, off + 40)
    return d


def sx_time_at(buf, off):
    return SX_TIME.unpack(buf, off)


def statx_out(buf):
    d = STATX_OUT_HEAD.unpack(buf, 0)
    st = STATX.unpack(buf, 32)
    for i, name in enumerate(["atime", "btime", "ctime", "mtime"]):
        st[name] = sx_time_at(buf, 32 + 64 + 16 * i)
    st.update(STATX_TAIL.unpack(buf, 32 + 128))
    d["stat"] = st
    return d


def expect_len(body, n, what):
    if len(body) != n:
        raise DecodeError("%s: body is %d bytes, expected %d" % (what, len(body), n))


# --------------------------------------------------------------------------------------
# Request decoding (kernel -> server)
# --------------------------------------------------------------------------------------
class Conn:
    """State that decoding depends on (negotiated in INIT)."""

    def __init__(self):
        self.minor = None
        self.flags = 0  # negotiated 64-bit INIT flags (from the reply)


def decode_request(op, body, conn):
    d = OrderedDict()
    if op in (1, 10, 11, 24):  # LOOKUP, UNLINK, RMDIR, REMOVEXATTR
        name, end = cstring(body, 0)
        d.update(name_field(name))
        expect_len(body, end, OPCODES[op])
    elif op == 2:
        d.update(FORGET_IN.unpack(body))
        expect_len(body, 8, "FORGET")
    elif op == 42:
        d.update(BATCH_FORGET_IN.unpack(body))
        d["items"] = [FORGET_ONE.unpack(body, 8 + 16 * i) for i in range(d["count"])]
        expect_len(body, 8 + 16 * d["count"], "BATCH_FORGET")
    elif op == 3:
        d.update(GETATTR_IN.unpack(body))
        expect_len(body, 16, "GETATTR")
    elif op == 4:
        d.update(SETATTR_IN.unpack(body))
        expect_len(body, 88, "SETATTR")
    elif op in (5, 17, 38):  # READLINK, STATFS, DESTROY: no body
        expect_len(body, 0, OPCODES[op])
    elif op == 6:  # SYMLINK: name \0 target \0
        name, off = cstring(body, 0)
        target, end = cstring(body, off, "target")
        d.update(name_field(name))
        d["target"] = text(target)
        d["ext_len"] = len(body) - end
    elif op == 8:
        d.update(MKNOD_IN.unpack(body))
        name, end = cstring(body, 16)
        d.update(name_field(name))
        d["ext_len"] = len(body) - end
    elif op == 9:
        d.update(MKDIR_IN.unpack(body))
        name, end = cstring(body, 8)
        d.update(name_field(name))
        d["ext_len"] = len(body) - end
    elif op == 12:
        d.update(RENAME_IN.unpack(body))
        old, off = cstring(body, 8, "oldname")
        new, end = cstring(body, off, "newname")
        d["oldname"], d["newname"] = text(old), text(new)
        expect_len(body, end, "RENAME")
    elif op == 45:
        d.update(RENAME2_IN.unpack(body))
        old, off = cstring(body, 16, "oldname")
        new, end = cstring(body, off, "newname")
        d["oldname"], d["newname"] = text(old), text(new)
        expect_len(body, end, "RENAME2")
    elif op == 13:
        d.update(LINK_IN.unpack(body))
        name, end = cstring(body, 8)
        d.update(name_field(name))
        expect_len(body, end, "LINK")
    elif op in (14, 27):  # OPEN, OPENDIR
        d.update(OPEN_IN.unpack(body))
        expect_len(body, 8, OPCODES[op])
    elif op in (15, 28, 44):  # READ, READDIR, READDIRPLUS
        d.update(READ_IN.unpack(body))
        expect_len(body, 40, OPCODES[op])
    elif op == 16:
        d.update(WRITE_IN.unpack(body))
        d.update(blob(body[40:]))
    elif op in (18, 29):  # RELEASE, RELEASEDIR
        d.update(RELEASE_IN.unpack(body))
        expect_len(body, 24, OPCODES[op])
    elif op in (20, 30):  # FSYNC, FSYNCDIR
        d.update(FSYNC_IN.unpack(body))
        expect_len(body, 16, OPCODES[op])
    elif op == 21:
        ext = bool(conn.flags & (1 << 29))  # FUSE_SETXATTR_EXT
        hs = SETXATTR_IN if ext else SETXATTR_IN_COMPAT
        d.update(hs.unpack(body))
        name, off = cstring(body, hs.size)
        d.update(name_field(name))
        d["value"] = blob(body[off:])
    elif op == 22:
        d.update(GETXATTR_IN.unpack(body))
        name, end = cstring(body, 8)
        d.update(name_field(name))
        expect_len(body, end, "GETXATTR")
    elif op == 23:
        d.update(GETXATTR_IN.unpack(body))
        expect_len(body, 8, "LISTXATTR")
    elif op == 25:
        d.update(FLUSH_IN.unpack(body))
        expect_len(body, 24, "FLUSH")
    elif op == 26:
        if len(body) >= 64:
            d.update(INIT_IN.unpack(body))
        else:  # older kernels send 8 or 16 bytes
            padded = body + bytes(64 - len(body))
            d.update(INIT_IN.unpack(padded))
            d["body_len"] = len(body)
        flags64 = d["flags"] | (d["flags2"] << 32 if d["flags"] & (1 << 30) else 0)
        d["flag_names"] = flag_names(flags64, INIT_FLAG_NAMES)
    elif op in (31, 32, 33):  # GETLK, SETLK, SETLKW
        d.update(LK_IN_HEAD.unpack(body))
        d["lk"] = FILE_LOCK.unpack(body, 16)
        d.update(LK_IN_TAIL.unpack(body, 40))
        expect_len(body, 48, OPCODES[op])
    elif op == 34:
        d.update(ACCESS_IN.unpack(body))
        expect_len(body, 8, "ACCESS")
    elif op == 35:
        d.update(CREATE_IN.unpack(body))
        name, end = cstring(body, 16)
        d.update(name_field(name))
        d["ext_len"] = len(body) - end
    elif op == 36:
        d.update(INTERRUPT_IN.unpack(body))
        expect_len(body, 8, "INTERRUPT")
    elif op == 37:
        d.update(BMAP_IN.unpack(body))
    elif op == 39:
        d.update(IOCTL_IN.unpack(body))
        d["in_data"] = blob(body[32:])
    elif op == 40:
        d.update(POLL_IN.unpack(body))
        expect_len(body, 24, "POLL")
    elif op == 41:
        d.update(NOTIFY_RETRIEVE_IN.unpack(body))
        d["data"] = blob(body[40:])
    elif op == 43:
        d.update(FALLOCATE_IN.unpack(body))
    elif op == 46:
        d.update(LSEEK_IN.unpack(body))
        expect_len(body, 24, "LSEEK")
    elif op in (47, 53):
        d.update(COPY_FILE_RANGE_IN.unpack(body))
    elif op == 52:
        d.update(STATX_IN.unpack(body))
        expect_len(body, 24, "STATX")
    else:
        d["body"] = blob(body)
    return d


# --------------------------------------------------------------------------------------
# Reply decoding (server -> kernel); needs the request it answers
# --------------------------------------------------------------------------------------
def parse_dirents(buf, plus):
    out, off = [], 0
    head = 152 if plus else 24
    while off + head <= len(buf):
        rec = OrderedDict()
        if plus:
            rec["entry_out"] = entry_out_at(buf, off)
        de = DIRENT.unpack(buf, off + head - 24)
        name = buf[off + head: off + head + de["namelen"]]
        reclen = (head + de["namelen"] + 7) & ~7
        if off + reclen > len(buf):
            break
        de.update(name_field(name))
        if plus:
            rec["dirent"] = de
        else:
            rec = de
        out.append(rec)
        off += reclen
    return out, len(buf) - off


def decode_reply(op, req_body, body, conn):
    """Decode a success reply payload for a request of opcode op."""
    d = OrderedDict()
    if op in (1, 6, 8, 9, 13):  # entry replies
        d.update(entry_out_at(body, 0))
        expect_len(body, 128, "entry_out")
    elif op == 35:  # CREATE
        d["entry_out"] = entry_out_at(body, 0)
        d["open_out"] = OPEN_OUT.unpack(body, 128)
        expect_len(body, 144, "CREATE reply")
    elif op in (3, 4):  # GETATTR, SETATTR
        d.update(ATTR_OUT_HEAD.unpack(body))
        d["attr"] = attr_at(body, 16)
        expect_len(body, 104, "attr_out")
    elif op == 5:
        d["target"] = text(body)
        d["target_len"] = len(body)
    elif op in (14, 27):
        d.update(OPEN_OUT.unpack(body))
        d["open_flag_names"] = flag_names(d["open_flags"], FOPEN_NAMES)
        expect_len(body, 16, "open_out")
    elif op == 15:
        d.update(blob(body))
    elif op == 16:
        d.update(WRITE_OUT.unpack(body))
    elif op == 17:
        d.update(KSTATFS.unpack(body))
        expect_len(body, 80, "statfs_out")
    elif op in (22, 23):
        req = GETXATTR_IN.unpack(req_body)
        if req["size"] == 0:
            d.update(GETXATTR_OUT.unpack(body))
            expect_len(body, 8, "getxattr_out")
        else:
            d.update(blob(body))
            if op == 23:
                names = body.split(b"\0")
                if names and names[-1] == b"":
                    names.pop()
                d["names"] = [text(n) for n in names]
            else:
                d["value"] = text(body)
    elif op == 26:
        if len(body) > 64:
            raise DecodeError("init_out longer than 64 bytes")
        d.update(INIT_OUT.unpack(body + bytes(64 - len(body))))
        d["reply_len"] = len(body)
        flags64 = d["flags"] | (d["flags2"] << 32 if d["flags"] & (1 << 30) else 0)
        d["flag_names"] = flag_names(flags64, INIT_FLAG_NAMES)
        conn.minor = d["minor"]
        conn.flags = flags64
    elif op in (28, 44):
        entries, trailing = parse_dirents(body, op == 44)
        d["data_len"] = len(body)
        d["count"] = len(entries)
        d["entries"] = entries
        if trailing:
            d["trailing_bytes"] = trailing
    elif op in (31,):
        d["lk"] = FILE_LOCK.unpack(body)
    elif op == 37:
        d.update(BMAP_OUT.unpack(body))
    elif op == 39:
        d.update(IOCTL_OUT.unpack(body))
        d["out_data"] = blob(body[16:])
    elif op == 40:
        d.update(POLL_OUT.unpack(body))
        expect_len(body, 8, "poll_out")
    elif op == 46:
        d.update(LSEEK_OUT.unpack(body))
        expect_len(body, 8, "lseek_out")
    elif op == 52:
        d.update(statx_out(body))
        expect_len(body, 288, "statx_out")
    elif op in (47, 53):
        d["size"] = struct.unpack_from("<Q" if op == 53 else "<I", body)[0] if body else None
        if op == 47:
            d.update(WRITE_OUT.unpack(body))
    else:
        # header-only replies (FLUSH, RELEASE, RELEASEDIR, FSYNC, ACCESS, SETLK, ...)
        if body:
            d["body"] = blob(body)
    return d


# --------------------------------------------------------------------------------------
# FUSECAP1 container
# --------------------------------------------------------------------------------------
def read_capture(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != MAGIC:
        raise SystemExit("%s: not a FUSECAP1 file" % path)
    frames, off = [], 8
    while off < len(data):
        if off + 5 > len(data):
            raise SystemExit("%s: truncated record header at %d" % (path, off))
        direction = data[off]
        (length,) = struct.unpack_from("<I", data, off + 1)
        off += 5
        if direction not in (K2S, S2K):
            raise SystemExit("%s: bad direction %d" % (path, direction))
        if off + length > len(data):
            raise SystemExit("%s: truncated frame at %d" % (path, off))
        frames.append((direction, data[off:off + length]))
        off += length
    return frames, data


def write_capture(path, frames):
    with open(path, "wb") as f:
        f.write(MAGIC)
        for direction, frame in frames:
            f.write(bytes([direction]))
            f.write(struct.pack("<I", len(frame)))
            f.write(frame)


def check_frame(direction, frame):
    """Return an error string if the frame's length field disagrees with its size."""
    if direction == K2S:
        if len(frame) < 40:
            return "request shorter than fuse_in_header (%d bytes)" % len(frame)
        (n,) = struct.unpack_from("<I", frame)
        if n != len(frame):
            return "in_header.len %d != read length %d" % (n, len(frame))
    else:
        if len(frame) < 16:
            return "reply shorter than fuse_out_header (%d bytes)" % len(frame)
        (n,) = struct.unpack_from("<I", frame)
        if n != len(frame):
            return "out_header.len %d != written length %d" % (n, len(frame))
    return None


# --------------------------------------------------------------------------------------
# Decoding a whole capture
# --------------------------------------------------------------------------------------
def decode_capture(frames):
    conn = Conn()
    pending = {}  # unique -> (frame index, opcode, body)
    out = []
    for i, (direction, frame) in enumerate(frames):
        rec = OrderedDict(index=i, direction=direction, length=len(frame))
        err = check_frame(direction, frame)
        if err:
            raise SystemExit("frame %d: %s" % (i, err))
        if direction == K2S:
            h = IN_HEADER.unpack(frame)
            rec["in_header"] = h
            op = h["opcode"]
            rec["opcode_name"] = OPCODES.get(op, "UNKNOWN_%d" % op)
            body = frame[40:]
            try:
                rec["body"] = decode_request(op, body, conn)
            except DecodeError as e:
                raise SystemExit("frame %d (%s): %s" % (i, rec["opcode_name"], e))
            if op not in NO_REPLY_OPCODES:
                if h["unique"] in pending:
                    raise SystemExit("frame %d: unique %d already pending"
                                     % (i, h["unique"]))
                pending[h["unique"]] = (i, op, body)
        else:
            h = OUT_HEADER.unpack(frame)
            rec["out_header"] = h
            body = frame[16:]
            if h["unique"] == 0:
                rec["kind"] = "notify"
                rec["notify_code"] = h["error"]
                rec["notify_name"] = NOTIFY_CODES.get(h["error"], "UNKNOWN")
                rec["body"] = blob(body)
            elif h["unique"] not in pending:
                rec["kind"] = "orphan_reply"
                rec["body"] = blob(body)
            else:
                req_index, op, req_body = pending.pop(h["unique"])
                rec["kind"] = "reply"
                rec["request_index"] = req_index
                rec["opcode"] = op
                rec["opcode_name"] = OPCODES.get(op, "UNKNOWN_%d" % op)
                if h["error"] != 0:
                    rec["errno_name"] = errno_name(h["error"])
                    if body:
                        rec["body"] = blob(body)
                else:
                    try:
                        rec["body"] = decode_reply(op, req_body, body, conn)
                    except DecodeError as e:
                        raise SystemExit("frame %d (reply to %s): %s"
                                         % (i, rec["opcode_name"], e))
        out.append(rec)
    # An INTERRUPT needs no reply of its own when the original request is answered.
    unanswered = sorted(v[0] for v in pending.values() if v[1] != 36)
    return out, unanswered


def request_counts(decoded):
    c = Counter(r["opcode_name"] for r in decoded if r["direction"] == K2S)
    return OrderedDict(sorted(c.items(), key=lambda kv: (-kv[1], kv[0])))


def to_json(path, decoded, unanswered, raw):
    top = OrderedDict()
    top["format"] = "FUSECAP1"
    top["capture"] = path.rsplit("/", 1)[-1]
    top["capture_sha256"] = hashlib.sha256(raw).hexdigest()
    top["frames_total"] = len(decoded)
    top["frames_kernel_to_server"] = sum(1 for r in decoded if r["direction"] == K2S)
    top["frames_server_to_kernel"] = sum(1 for r in decoded if r["direction"] == S2K)
    top["requests_by_opcode"] = request_counts(decoded)
    top["unanswered_request_indexes"] = unanswered
    head = json.dumps(top, indent=1)
    lines = ",\n".join(json.dumps(r) for r in decoded)
    return head[:-2] + ',\n "frames": [\n' + lines + "\n ]\n}\n"


# --------------------------------------------------------------------------------------
# One-line dump
# --------------------------------------------------------------------------------------
def short(d, keys):
    return " ".join("%s=%s" % (k, d[k]) for k in keys if k in d)


def dump_line(r):
    if r["direction"] == K2S:
        h, b, op = r["in_header"], r["body"], r["opcode_name"]
        s = "#%d K>S %-12s len=%d unique=%d nodeid=%d" % (
            r["index"], op, h["len"], h["unique"], h["nodeid"])
        if "name" in b:
            s += " name=%r" % b["name"]
        s += " " + short(b, ["fh", "offset", "size", "flags", "getattr_flags", "nlookup",
                             "count", "mask", "whence", "cmd", "events", "major", "minor",
                             "sx_mask", "unique"])
        if "items" in b:
            s += " items=%d" % len(b["items"])
        return s.rstrip()
    h = r["out_header"]
    s = "#%d S>K %-12s len=%d unique=%d" % (r["index"], r.get("opcode_name", r["kind"]),
                                             h["len"], h["unique"])
    if r["kind"] == "notify":
        return s + " notify=%s" % r["notify_name"]
    if r["kind"] == "orphan_reply":
        return s + " ORPHAN error=%d" % h["error"]
    s += " (req #%d)" % r["request_index"]
    if h["error"]:
        return s + " error=%s" % r["errno_name"]
    b = r.get("body", {})
    if "attr" in b:
        s += " " + short(b, ["nodeid"]) + " ino=%d mode=%o size=%d" % (
            b["attr"]["ino"], b["attr"]["mode"], b["attr"]["size"])
    if "entries" in b:
        s += " entries=%d" % b["count"]
    s += " " + short(b, ["fh", "open_flags", "target", "data_len", "size", "names",
                         "value", "minor", "flags", "max_write", "max_pages", "revents",
                         "offset", "namelen", "blocks"])
    return s.rstrip()


# --------------------------------------------------------------------------------------
# strace log -> frames
# --------------------------------------------------------------------------------------
LINE_RE = re.compile(r"^(\d+)\s+(.*)$")
CALL_RE = re.compile(r"^(\w+)\((.*)$")
RET_RE = re.compile(r"\)\s+=\s+(-?\d+|\?)(?:\s+(\w+))?.*$")
RESUMED_RE = re.compile(r"^<\.\.\. (\w+) resumed>(.*)$")
DUMP_RE = re.compile(r"^ \| ([0-9a-f]{5,})  (.*)$")
IOVHDR_RE = re.compile(r"^ \* (\d+) bytes in buffer (\d+)$")
STR_RE = re.compile(r'"((?:\\x[0-9a-f]{2}|\\.|[^"\\])*)"')

TRACED = {"read", "readv", "write", "writev", "splice", "vmsplice", "tee", "openat", "open",
          "close", "dup", "dup2", "dup3", "pipe2", "pipe", "ioctl"}


def unescape_c(s):
    out = bytearray()
    i = 0
    while i < len(s):
        c = s[i]
        if c == "\\" and i + 1 < len(s):
            n = s[i + 1]
            if n == "x":
                out.append(int(s[i + 2:i + 4], 16))
                i += 4
                continue
            out.append({"n": 10, "t": 9, "r": 13, "0": 0, "\\": 92, '"': 34}.get(n, ord(n)))
            i += 2
            continue
        out.extend(c.encode())
        i += 1
    return bytes(out)


def parse_dump_lines(lines, start):
    """Parse consecutive hex dump lines beginning at start. Returns (bytes, next index)."""
    data = bytearray()
    i = start
    while i < len(lines):
        m = DUMP_RE.match(lines[i])
        if not m:
            break
        if int(m.group(1), 16) != len(data):
            raise SystemExit("strace dump offset mismatch at line %d" % (i + 1))
        hexpart = m.group(2)[:49]  # 16 x "xx " plus one extra space after byte 8
        data.extend(bytes.fromhex(hexpart.replace(" ", "")))
        i += 1
    return bytes(data), i


def from_strace(trace_path):
    with open(trace_path, "r", encoding="ascii", errors="strict") as f:
        lines = f.read().split("\n")
    fuse_fds = set()
    unfinished = {}  # tid -> (syscall, first-arg text)
    frames = []
    problems = []
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        m = LINE_RE.match(line)
        if not m:
            continue
        tid, rest = m.group(1), m.group(2)
        rm = RESUMED_RE.match(rest)
        if rm:
            name, tail = rm.group(1), rm.group(2)
            if tid not in unfinished:
                continue
            sc, args = unfinished.pop(tid)
            if sc != name:
                raise SystemExit("line %d: resumed %s but %s was unfinished" % (i, name, sc))
            full = args + tail
        else:
            cm = CALL_RE.match(rest)
            if not cm:
                continue
            name, full = cm.group(1), cm.group(2)
            if name not in TRACED:
                continue
            if full.endswith("<unfinished ...>"):
                unfinished[tid] = (name, full[:-len("<unfinished ...>")])
                continue
        if name not in TRACED:
            continue
        rmatch = RET_RE.search(full)
        if not rmatch:
            continue
        ret = rmatch.group(1)
        ret = None if ret == "?" else int(ret)
        first = full.split(",", 1)[0].strip()
        if name in ("openat", "open"):
            sm = STR_RE.search(full)
            path = unescape_c(sm.group(1)) if sm else b""
            if path == b"/dev/fuse" and ret is not None and ret >= 0:
                fuse_fds.add(ret)
            elif ret is not None and ret in fuse_fds:
                fuse_fds.discard(ret)
            continue
        if name == "close":
            if ret == 0 and first.isdigit():
                fuse_fds.discard(int(first))
            continue
        if name in ("dup", "dup2", "dup3"):
            if first.isdigit() and int(first) in fuse_fds and ret is not None and ret >= 0:
                fuse_fds.add(ret)
            continue
        if name in ("pipe", "pipe2", "ioctl"):
            continue
        if name in ("splice", "vmsplice", "tee"):
            if any(a.strip().isdigit() and int(a.strip()) in fuse_fds
                   for a in full.split(",")):
                raise SystemExit(
                    "line %d: %s on the /dev/fuse fd; frames would be invisible to strace. "
                    "The capture tool must run the server where libfuse falls back to "
                    "read()/writev() (see README)." % (i, name))
            continue
        if not first.isdigit() or int(first) not in fuse_fds:
            continue
        if ret is None or ret < 0:
            if name in ("write", "writev"):
                problems.append("line %d: %s to /dev/fuse failed: %s" % (i, name, full[-60:]))
            continue
        if name in ("read", "write"):
            data, i = parse_dump_lines(lines, i)
        else:  # readv / writev: "* N bytes in buffer K" + dump, per iovec
            data = bytearray()
            while i < len(lines):
                im = IOVHDR_RE.match(lines[i])
                if not im:
                    break
                part, i = parse_dump_lines(lines, i + 1)
                if len(part) != int(im.group(1)):
                    raise SystemExit("line %d: iovec dump has %d bytes, header says %s"
                                     % (i, len(part), im.group(1)))
                data.extend(part)
            data = bytes(data)
        if len(data) != ret:
            raise SystemExit("line %d: %s returned %d but the dump has %d bytes "
                             "(strace dump incomplete?)" % (i, name, ret, len(data)))
        direction = K2S if name in ("read", "readv") else S2K
        err = check_frame(direction, data)
        if err:
            raise SystemExit("line %d: %s" % (i, err))
        frames.append((direction, data))
    return frames, problems


# --------------------------------------------------------------------------------------
# Cross-check against libfuse's own debug log (server started with -d)
# --------------------------------------------------------------------------------------
DBG_REQ_RE = re.compile(r"^unique: (\d+), opcode: \S+ \((\d+)\), nodeid: (\d+), "
                        r"insize: (\d+), pid: (\d+)$")
DBG_REP_RE = re.compile(r"^   unique: (\d+), (?:success|error: (-?\d+) \(.*\)), "
                        r"outsize: (\d+)$")


def crosscheck(decoded, log_path):
    """Compare the capture with what libfuse itself logged for every request and reply.

    libfuse -d prints, per request it read, "unique, opcode, nodeid, insize, pid" and, per
    reply it wrote, "unique, error, outsize". Both lists must equal the capture's (as
    multisets: a multi-threaded server logs in its own order).
    """
    reqs, reps = [], []
    with open(log_path, encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            m = DBG_REQ_RE.match(line)
            if m:
                reqs.append(tuple(int(x) for x in m.groups()))
                continue
            m = DBG_REP_RE.match(line)
            if m:
                reps.append((int(m.group(1)), int(m.group(2) or 0), int(m.group(3))))
    cap_reqs = [(r["in_header"]["unique"], r["in_header"]["opcode"], r["in_header"]["nodeid"],
                 r["length"], r["in_header"]["pid"]) for r in decoded if r["direction"] == K2S]
    cap_reps = [(r["out_header"]["unique"], r["out_header"]["error"], r["length"])
                for r in decoded if r["direction"] == S2K]
    problems = []
    for what, mine, theirs in (("requests", cap_reqs, reqs), ("replies", cap_reps, reps)):
        a, b = Counter(mine), Counter(theirs)
        if a != b:
            problems.append("%s differ: only in capture %s; only in libfuse log %s"
                            % (what, list((a - b).elements())[:5], list((b - a).elements())[:5]))
    return problems, len(reqs), len(reps)


# --------------------------------------------------------------------------------------
# CLI
# --------------------------------------------------------------------------------------
def main(argv):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("from-strace")
    p.add_argument("trace")
    p.add_argument("out")
    p = sub.add_parser("json")
    p.add_argument("capture")
    p.add_argument("-o", "--out")
    for name in ("dump", "stats", "validate"):
        p = sub.add_parser(name)
        p.add_argument("capture")
    p = sub.add_parser("crosscheck")
    p.add_argument("capture")
    p.add_argument("server_log")
    p = sub.add_parser("require")
    p.add_argument("capture")
    p.add_argument("opcodes", nargs="+")
    a = ap.parse_args(argv)

    if a.cmd == "from-strace":
        frames, problems = from_strace(a.trace)
        for pr in problems:
            print("warning: " + pr, file=sys.stderr)
        if problems:
            raise SystemExit("rejected writes on /dev/fuse: refusing to write a capture")
        if not frames:
            raise SystemExit("no /dev/fuse frames found in %s" % a.trace)
        write_capture(a.out, frames)
        print("%s: %d frames" % (a.out, len(frames)))
        return
    frames, raw = read_capture(a.capture)
    if a.cmd == "validate":
        for i, (d, fr) in enumerate(frames):
            err = check_frame(d, fr)
            if err:
                raise SystemExit("frame %d: %s" % (i, err))
        decode_capture(frames)
        print("%s: OK, %d frames" % (a.capture, len(frames)))
        return
    decoded, unanswered = decode_capture(frames)
    if a.cmd == "crosscheck":
        problems, nreq, nrep = crosscheck(decoded, a.server_log)
        if problems:
            for pr in problems:
                print("crosscheck: " + pr, file=sys.stderr)
            sys.exit(1)
        print("%s: matches libfuse's debug log (%d requests, %d replies)"
              % (a.capture, nreq, nrep))
        return
    if a.cmd == "require":
        counts = request_counts(decoded)
        missing = [o for o in a.opcodes if o not in counts]
        if missing:
            print("%s: no %s request" % (a.capture, ", ".join(missing)), file=sys.stderr)
            sys.exit(1)
        return
    if a.cmd == "json":
        js = to_json(a.capture, decoded, unanswered, raw)
        if a.out:
            with open(a.out, "w") as f:
                f.write(js)
        else:
            sys.stdout.write(js)
    elif a.cmd == "dump":
        for r in decoded:
            print(dump_line(r))
    elif a.cmd == "stats":
        counts = request_counts(decoded)
        print("file: %s (%d bytes)" % (a.capture, len(raw)))
        print("frames: %d (kernel->server %d, server->kernel %d)" % (
            len(decoded), sum(1 for r in decoded if r["direction"] == K2S),
            sum(1 for r in decoded if r["direction"] == S2K)))
        print("distinct request opcodes: %d" % len(counts))
        for k, v in counts.items():
            print("  %-16s %d" % (k, v))
        errs = Counter("%s:%s" % (r["opcode_name"], r["errno_name"]) for r in decoded
                       if r["direction"] == S2K and r.get("errno_name"))
        if errs:
            print("error replies:")
            for k, v in sorted(errs.items()):
                print("  %-28s %d" % (k, v))
        if unanswered:
            print("unanswered requests: %s" % unanswered)


if __name__ == "__main__":
    main(sys.argv[1:])
