#!/usr/bin/env python3
"""Writes the seed sessions of DispatcherFuzzTest (FUSE 7.45 request layouts, include/uapi/linux/fuse.h).

Each seed is records of [control u8][length u16le][frame]; control bit 1 puts nodes[control >> 4] into the
header's nodeid, bit 2 handles[control >> 4] at offset 40 (the fh of READ, RELEASE, ...), bit 3 aims an
INTERRUPT at uniques[control >> 4] (on any other frame: the next frames go before its reply); nodes start as [1] and grow with each LOOKUP reply, handles with each
OPEN/OPENDIR reply. Run from the repository root: python3 tools/fuzz/dispatcher_seeds.py"""
import os
import struct

def hdr(opcode, nodeid, args):
    return struct.pack('<IIQQIIIHH', 40 + len(args), opcode, 0, nodeid, 0, 0, 4242, 0, 0) + args

def rec(control, frame):
    return struct.pack('<BH', control, len(frame)) + frame

def node(i):   # nodeid from nodes[i]
    return (i << 4) | 2

def fh(i, n):  # nodeid nodes[n] and fh handles[i]: both picks use control >> 4, so keep them equal
    return (i << 4) | 6

LOOKUP, FORGET, GETATTR, READLINK, OPEN, READ, STATFS, RELEASE, GETXATTR, LISTXATTR, FLUSH, INIT = 1, 2, 3, 5, 14, 15, 17, 18, 22, 23, 25, 26
OPENDIR, READDIR, RELEASEDIR, ACCESS, INTERRUPT, DESTROY, POLL, BATCH_FORGET, READDIRPLUS, LSEEK, STATX, MKDIR = 27, 28, 29, 34, 36, 38, 40, 42, 44, 46, 52, 9

def read_in(off, size):
    return struct.pack('<QQIIQII', 0, off, size, 0, 0, 0x8000, 0)

seeds = {
    'hello-file': [
        rec(0, hdr(LOOKUP, 1, b'hello\0')),
        rec(node(1), hdr(GETATTR, 0, struct.pack('<IIQ', 0, 0, 0))),
        rec(node(1), hdr(OPEN, 0, struct.pack('<II', 0x8000, 0))),
        rec(0x06, hdr(READ, 0, read_in(0, 4096))),
        rec(node(1), hdr(GETXATTR, 0, struct.pack('<II', 64, 0) + b'user.colour\0')),
        rec(node(1), hdr(GETXATTR, 0, struct.pack('<II', 0, 0) + b'user.colour\0')),
        rec(node(1), hdr(LISTXATTR, 0, struct.pack('<II', 0, 0))),
        rec(node(1), hdr(LISTXATTR, 0, struct.pack('<II', 256, 0))),
        rec(0x06, hdr(FLUSH, 0, struct.pack('<QIIQ', 0, 0, 0, 0))),
        rec(0x06, hdr(RELEASE, 0, struct.pack('<QIIQ', 0, 0x8000, 0, 0))),
        rec(node(1), hdr(FORGET, 0, struct.pack('<Q', 1))),
    ],
    'big-file': [
        rec(0, hdr(LOOKUP, 1, b'docs\0')),
        rec(node(1), hdr(LOOKUP, 0, b'big.bin\0')),
        rec(node(2), hdr(OPEN, 0, struct.pack('<II', 0x8000, 0))),
        rec(0x06, hdr(READ, 0, read_in(0, 131072))),
        rec(0x06, hdr(READ, 0, read_in(299000, 131072))),
        rec(0x06, hdr(READ, 0, read_in(1 << 40, 4096))),
        rec(0x06, hdr(LSEEK, 0, struct.pack('<QQII', 0, 100, 3, 0))),
        rec(0x06, hdr(STATX, 0, struct.pack('<IIQII', 1, 0, 0, 0, 0x7ff))),
        rec(0x06, hdr(POLL, 0, struct.pack('<QQII', 0, 0, 0, 1))),
        rec(0x06, hdr(RELEASE, 0, struct.pack('<QIIQ', 0, 0x8000, 0, 0))),
        rec(0, hdr(BATCH_FORGET, 0, struct.pack('<II', 2, 0) + struct.pack('<QQ', 2, 1) + struct.pack('<QQ', 3, 1))),
    ],
    'directories': [
        rec(0, hdr(OPENDIR, 1, struct.pack('<II', 0x18800, 0))),
        rec(0x04, hdr(READDIRPLUS, 1, read_in(0, 4096))),
        rec(0x04, hdr(READDIRPLUS, 1, read_in(3, 4096))),
        rec(0x04, hdr(READDIR, 1, read_in(0, 80))),
        rec(0x04, hdr(RELEASEDIR, 1, struct.pack('<QIIQ', 0, 0, 0, 0))),
        rec(0, hdr(LOOKUP, 1, b'link\0')),
        rec(node(1), hdr(READLINK, 0, b'')),
        rec(0, hdr(LOOKUP, 1, b'x' * 255 + b'\0')),
        rec(0, hdr(LOOKUP, 1, b'missing\0')),
        rec(0, hdr(STATFS, 1, b'')),
        rec(0, hdr(ACCESS, 1, struct.pack('<II', 4, 0))),
        rec(0x08, hdr(INTERRUPT, 0, struct.pack('<Q', 0))),
    ],
    'malformed': [
        rec(0, hdr(LOOKUP, 1, b'hello\0')[:20]),
        rec(1, hdr(LOOKUP, 1, b'hello\0')[:-1] + b'\0\0\0'),
        rec(0, hdr(LOOKUP, 1, b'no-nul')),
        rec(0, hdr(99, 1, b'')),
        rec(0, hdr(MKDIR, 1, struct.pack('<II', 0o755, 0) + b'd\0')),
        rec(0, hdr(INIT, 0, struct.pack('<IIII', 7, 45, 131072, 0) + bytes(48))),
        rec(0, hdr(READ, 1, read_in(0, 4096))),
        rec(0, hdr(GETATTR, 12345, struct.pack('<IIQ', 1, 0, 777))),
        rec(0, hdr(DESTROY, 0, b'')),
    ],
}
out = 'fuse-readonly-kit/src/test/resources/io/github/purefuse/kit/path/DispatcherFuzzTestInputs'
os.makedirs(out, exist_ok=True)
for name, records in seeds.items():
    with open(os.path.join(out, name), 'wb') as f:
        f.write(b''.join(records))
