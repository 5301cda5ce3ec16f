package io.github.purefuse.channel.internal.codec;

import io.github.purefuse.api.request.Access;
import io.github.purefuse.api.request.Flush;
import io.github.purefuse.api.request.Fsync;
import io.github.purefuse.api.request.Fsyncdir;
import io.github.purefuse.api.request.FuseRequest;
import io.github.purefuse.api.request.Getattr;
import io.github.purefuse.api.request.Getxattr;
import io.github.purefuse.api.request.Listxattr;
import io.github.purefuse.api.request.Lookup;
import io.github.purefuse.api.request.Lseek;
import io.github.purefuse.api.request.Open;
import io.github.purefuse.api.request.Opendir;
import io.github.purefuse.api.request.Poll;
import io.github.purefuse.api.request.Read;
import io.github.purefuse.api.request.Readdir;
import io.github.purefuse.api.request.Readdirplus;
import io.github.purefuse.api.request.Readlink;
import io.github.purefuse.api.request.Release;
import io.github.purefuse.api.request.Releasedir;
import io.github.purefuse.api.request.RequestHeader;
import io.github.purefuse.api.request.Statfs;
import io.github.purefuse.api.request.Statx;
import io.github.purefuse.api.types.FileHandle;
import io.github.purefuse.api.types.NodeId;
import io.github.purefuse.channel.internal.request.BatchForget;
import io.github.purefuse.channel.internal.request.Bmap;
import io.github.purefuse.channel.internal.request.ChannelRequest;
import io.github.purefuse.channel.internal.request.CopyFileRange;
import io.github.purefuse.channel.internal.request.Create;
import io.github.purefuse.channel.internal.request.Destroy;
import io.github.purefuse.channel.internal.request.Fallocate;
import io.github.purefuse.channel.internal.request.FileLock;
import io.github.purefuse.channel.internal.request.Forget;
import io.github.purefuse.channel.internal.request.Getlk;
import io.github.purefuse.channel.internal.request.Incoming;
import io.github.purefuse.channel.internal.request.Init;
import io.github.purefuse.channel.internal.request.Interrupt;
import io.github.purefuse.channel.internal.request.Ioctl;
import io.github.purefuse.channel.internal.request.Link;
import io.github.purefuse.channel.internal.request.Mkdir;
import io.github.purefuse.channel.internal.request.Mknod;
import io.github.purefuse.channel.internal.request.NotifyReply;
import io.github.purefuse.channel.internal.request.Removexattr;
import io.github.purefuse.channel.internal.request.Rename;
import io.github.purefuse.channel.internal.request.Rename2;
import io.github.purefuse.channel.internal.request.Rmdir;
import io.github.purefuse.channel.internal.request.Setattr;
import io.github.purefuse.channel.internal.request.Setlk;
import io.github.purefuse.channel.internal.request.Setxattr;
import io.github.purefuse.channel.internal.request.Symlink;
import io.github.purefuse.channel.internal.request.Syncfs;
import io.github.purefuse.channel.internal.request.Tmpfile;
import io.github.purefuse.channel.internal.request.Unknown;
import io.github.purefuse.channel.internal.request.Unlink;
import io.github.purefuse.channel.internal.request.Write;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Random;

/**
 * Test side: builds the request frame the kernel would send for a request record (layouts written out
 * by hand from fuse-struct-offsets-7.45.txt, with the older minors' sizes), generates random records,
 * and compares records field by field. Payloads the records do not keep (WRITE data, SETXATTR values,
 * IOCTL input) are filled with random bytes; extensions ({@code total_extlen}) with zeros.
 */
final class FrameWriter {
    private FrameWriter() {
    }

    /** The frame for {@code r} at protocol minor {@code minor}; {@code in_header.len} is computed, not taken from the record. */
    static byte[] frame(Incoming r, int minor, Random rnd) {
        Bytes b = new Bytes();
        switch (record(r)) {
            case Init x -> {
                b.u32(x.major()).u32(x.minor()).u32(x.maxReadahead()).u32(x.flags()).u32(x.flags() >>> 32).zeros(44);
            }
            case Destroy x -> { }
            case Lookup x -> b.cstr(x.name());
            case Forget x -> b.u64(x.nlookup());
            case BatchForget x -> {
                b.u32(x.items().size()).u32(0);
                for (BatchForget.Item i : x.items()) {
                    b.u64(i.nodeId().value()).u64(i.nlookup());
                }
            }
            case Getattr x -> {
                if (minor >= 9) {
                    b.u32(x.getattrFlags()).u32(0).u64(x.fh().value());
                }
            }
            case Statx x -> b.u32(x.getattrFlags()).u32(0).u64(x.fh().value()).u32(x.sxFlags()).u32(x.sxMask());
            case Readlink x -> { }
            case Open x -> b.u32(x.flags()).u32(x.openFlags());
            case Opendir x -> b.u32(x.flags()).u32(x.openFlags());
            case Read x -> readIn(b, minor, x.fh(), x.offset(), x.size(), x.readFlags(), x.lockOwner(), x.flags());
            case Readdir x -> readIn(b, minor, x.fh(), x.offset(), x.size(), 0, 0, x.flags());
            case Readdirplus x -> readIn(b, minor, x.fh(), x.offset(), x.size(), 0, 0, x.flags());
            case Release x -> releaseIn(b, minor, x.fh(), x.flags(), x.releaseFlags(), x.lockOwner());
            case Releasedir x -> releaseIn(b, minor, x.fh(), x.flags(), x.releaseFlags(), x.lockOwner());
            case Statfs x -> { }
            case Getxattr x -> b.u32(x.size()).u32(0).cstr(x.name());
            case Listxattr x -> b.u32(x.size()).u32(0);
            case Access x -> b.u32(x.mask()).u32(0);
            case Flush x -> b.u64(x.fh().value()).u32(0).u32(0).u64(x.lockOwner());
            case Fsync x -> b.u64(x.fh().value()).u32(x.fsyncFlags()).u32(0);
            case Fsyncdir x -> b.u64(x.fh().value()).u32(x.fsyncFlags()).u32(0);
            case Interrupt x -> b.u64(x.targetUnique());
            case Lseek x -> b.u64(x.fh().value()).u64(x.offset()).u32(x.whence()).u32(0);
            case Poll x -> b.u64(x.fh().value()).u64(x.kh()).u32(x.pollFlags()).u32(x.events());
            case Ioctl x -> {
                b.u64(x.fh().value()).u32(x.ioctlFlags()).u32(x.cmd()).u64(x.arg()).u32(x.inSize()).u32(x.outSize());
                b.raw(random(rnd, x.inSize()));
            }
            case Syncfs x -> b.u64(0);
            case Getlk x -> lkIn(b, x.fh(), x.owner(), x.lock(), x.lkFlags());
            case Setlk x -> lkIn(b, x.fh(), x.owner(), x.lock(), x.lkFlags());
            case Bmap x -> b.u64(x.block()).u32(x.blocksize()).u32(0);
            case NotifyReply x -> b.u64(0).u64(x.offset()).u32(x.data().length).u32(0).u64(0).u64(0).raw(x.data());
            case Unknown x -> b.zeros(x.bodyLen());
            case Setattr x -> b.u32(x.valid()).u32(0).u64(x.fh().value()).u64(x.size()).u64(x.lockOwner())
                    .u64(x.atime()).u64(x.mtime()).u64(x.ctime()).u32(x.atimensec()).u32(x.mtimensec()).u32(x.ctimensec())
                    .u32(x.mode()).u32(0).u32(x.uid()).u32(x.gid()).u32(0);
            case Mknod x -> {
                b.u32(x.mode()).u32(x.rdev());
                if (minor >= 12) {
                    b.u32(x.umask()).u32(0);
                }
                b.cstr(x.name());
            }
            case Mkdir x -> b.u32(x.mode()).u32(x.umask()).cstr(x.name());
            case Unlink x -> b.cstr(x.name());
            case Rmdir x -> b.cstr(x.name());
            case Rename x -> b.u64(x.newDir()).cstr(x.oldName()).cstr(x.newName());
            case Rename2 x -> b.u64(x.newDir()).u32(x.renameFlags()).u32(0).cstr(x.oldName()).cstr(x.newName());
            case Link x -> b.u64(x.oldNodeId()).cstr(x.newName());
            case Symlink x -> b.cstr(x.name()).cstr(x.target());
            case Write x -> {
                b.u64(x.fh().value()).u64(x.offset()).u32(x.size()).u32(x.writeFlags());
                if (minor >= 9) {
                    b.u64(x.lockOwner()).u32(x.flags()).u32(0);
                }
                b.raw(random(rnd, x.size()));
            }
            case Create x -> createIn(b, minor, x.flags(), x.mode(), x.umask(), x.openFlags()).cstr(x.name());
            case Tmpfile x -> createIn(b, minor, x.flags(), x.mode(), x.umask(), x.openFlags()).cstr(x.name());
            case Setxattr x -> b.u32(x.size()).u32(x.setxattrFlags()).cstr(x.name()).raw(random(rnd, x.size()));
            case Removexattr x -> b.cstr(x.name());
            case Fallocate x -> b.u64(x.fh().value()).u64(x.offset()).u64(x.length()).u32(x.fallocateMode()).u32(0);
            case CopyFileRange x -> b.u64(x.fhIn().value()).u64(x.offIn()).u64(x.nodeIdOut()).u64(x.fhOut().value())
                    .u64(x.offOut()).u64(x.length()).u64(x.copyFlags());
            default -> throw new IllegalArgumentException("no layout for " + r);
        }
        RequestHeader h = r.header();
        b.zeros(h.totalExtlen() * 8);
        return Bytes.request(h.opcode(), h.unique(), h.nodeid(), h.uid(), h.gid(), h.pid(), h.totalExtlen(), b.bytes());
    }

    private static void readIn(Bytes b, int minor, FileHandle fh, long offset, int size, int readFlags, long lockOwner, int flags) {
        b.u64(fh.value()).u64(offset).u32(size).u32(readFlags);
        if (minor >= 9) {
            b.u64(lockOwner).u32(flags).u32(0);
        }
    }

    private static void releaseIn(Bytes b, int minor, FileHandle fh, int flags, int releaseFlags, long lockOwner) {
        b.u64(fh.value()).u32(flags).u32(releaseFlags);
        if (minor >= 8) {
            b.u64(lockOwner);
        }
    }

    private static void lkIn(Bytes b, FileHandle fh, long owner, FileLock lock, int lkFlags) {
        b.u64(fh.value()).u64(owner).u64(lock.start()).u64(lock.end()).u32(lock.type()).u32(lock.pid()).u32(lkFlags).u32(0);
    }

    private static Bytes createIn(Bytes b, int minor, int flags, int mode, int umask, int openFlags) {
        b.u32(flags).u32(mode);
        if (minor >= 12) {
            b.u32(umask).u32(openFlags);
        }
        return b;
    }

    private static byte[] random(Random rnd, int n) {
        byte[] out = new byte[n];
        rnd.nextBytes(out);
        return out;
    }

    // ---------------------------------------------------------------------------------------------
    // Random records

    /** Every opcode {@link #random} can produce (1..53 without 7, 19, 48, 49), plus an unknown one. */
    static final int[] OPCODES = {1, 2, 3, 4, 5, 6, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 20, 21, 22, 23, 24, 25, 26,
        27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 50, 51, 52, 53, 7, 48, 4096};

    /**
     * A random record of {@code opcode} that the kernel of {@code minor} could send: fields the old layout
     * lacks are 0, nodeids are non-zero where required, names are valid UTF-8 without NUL.
     */
    static Incoming random(int opcode, int minor, Random rnd) {
        Object r = randomRecord(opcode, minor, rnd);
        return r instanceof FuseRequest f ? new Incoming.ForFilesystem(f) : (ChannelRequest) r;
    }

    /** The request record itself: a public {@link FuseRequest} unwrapped, or the {@link ChannelRequest}. */
    static Object record(Incoming r) {
        return r instanceof Incoming.ForFilesystem(FuseRequest f) ? f : r;
    }

    private static Object randomRecord(int opcode, int minor, Random rnd) {
        boolean noNode = opcode == 26 || opcode == 36 || opcode == 42 || opcode == 38;
        boolean create = opcode == 35 || opcode == 51 || opcode == 8 || opcode == 9 || opcode == 6;
        long nodeid = noNode ? (rnd.nextInt(4) == 0 ? rnd.nextLong() : 0) : nonZero(rnd);
        int ext = create && minor >= 38 && rnd.nextInt(3) == 0 ? 1 + rnd.nextInt(3) : 0;
        RequestHeader h = new RequestHeader(0, opcode, rnd.nextLong(), nodeid, rnd.nextInt(), rnd.nextInt(), rnd.nextInt(), ext);
        boolean m9 = minor >= 9;
        boolean m12 = minor >= 12;
        return switch (opcode) {
            case 1 -> (Object) new Lookup(h, name(rnd));
            case 2 -> new Forget(h, rnd.nextLong());
            case 3 -> m9 ? new Getattr(h, rnd.nextInt(), fh(rnd)) : new Getattr(h, 0, FileHandle.NONE);
            case 4 -> new Setattr(h, rnd.nextInt(), fh(rnd), rnd.nextLong(), rnd.nextLong(), rnd.nextLong(), rnd.nextLong(),
                    rnd.nextLong(), rnd.nextInt(), rnd.nextInt(), rnd.nextInt(), rnd.nextInt(), rnd.nextInt(), rnd.nextInt());
            case 5 -> new Readlink(h);
            case 6 -> new Symlink(h, name(rnd), name(rnd));
            case 8 -> new Mknod(h, name(rnd), rnd.nextInt(), rnd.nextInt(), m12 ? rnd.nextInt() : 0);
            case 9 -> new Mkdir(h, name(rnd), rnd.nextInt(), rnd.nextInt());
            case 10 -> new Unlink(h, name(rnd));
            case 11 -> new Rmdir(h, name(rnd));
            case 12 -> new Rename(h, nonZero(rnd), name(rnd), name(rnd));
            case 13 -> new Link(h, nonZero(rnd), name(rnd));
            case 14 -> new Open(h, rnd.nextInt(), rnd.nextInt());
            case 15 -> new Read(h, fh(rnd), rnd.nextLong(), rnd.nextInt(), rnd.nextInt(), m9 ? rnd.nextLong() : 0, m9 ? rnd.nextInt() : 0);
            case 16 -> new Write(h, fh(rnd), rnd.nextLong(), rnd.nextInt(300), rnd.nextInt(), m9 ? rnd.nextLong() : 0, m9 ? rnd.nextInt() : 0);
            case 17 -> new Statfs(h);
            case 18 -> new Release(h, fh(rnd), rnd.nextInt(), rnd.nextInt(), minor >= 8 ? rnd.nextLong() : 0);
            case 20 -> new Fsync(h, fh(rnd), rnd.nextInt());
            case 21 -> new Setxattr(h, name(rnd), rnd.nextInt(100), rnd.nextInt());
            case 22 -> new Getxattr(h, name(rnd), rnd.nextInt());
            case 23 -> new Listxattr(h, rnd.nextInt());
            case 24 -> new Removexattr(h, name(rnd));
            case 25 -> new Flush(h, fh(rnd), rnd.nextLong());
            case 26 -> {
                long flags = Integer.toUnsignedLong(rnd.nextInt());
                if ((flags & (1L << 30)) != 0) {
                    flags |= ((long) rnd.nextInt()) << 32;
                }
                yield new Init(h, 7, rnd.nextInt(50), rnd.nextInt(), flags);
            }
            case 27 -> new Opendir(h, rnd.nextInt(), rnd.nextInt());
            case 28 -> new Readdir(h, fh(rnd), rnd.nextLong(), rnd.nextInt(), m9 ? rnd.nextInt() : 0);
            case 29 -> new Releasedir(h, fh(rnd), rnd.nextInt(), rnd.nextInt(), minor >= 8 ? rnd.nextLong() : 0);
            case 30 -> new Fsyncdir(h, fh(rnd), rnd.nextInt());
            case 31 -> new Getlk(h, fh(rnd), rnd.nextLong(), lock(rnd), rnd.nextInt());
            case 32, 33 -> new Setlk(h, fh(rnd), rnd.nextLong(), lock(rnd), rnd.nextInt(), opcode == 33);
            case 34 -> new Access(h, rnd.nextInt());
            case 35 -> new Create(h, rnd.nextInt(), rnd.nextInt(), m12 ? rnd.nextInt() : 0, m12 ? rnd.nextInt() : 0, name(rnd));
            case 36 -> new Interrupt(h, rnd.nextLong());
            case 37 -> new Bmap(h, rnd.nextLong(), rnd.nextInt());
            case 38 -> new Destroy(h);
            case 39 -> new Ioctl(h, fh(rnd), rnd.nextInt(), rnd.nextInt(), rnd.nextLong(), rnd.nextInt(64), rnd.nextInt());
            case 40 -> new Poll(h, fh(rnd), rnd.nextLong(), rnd.nextInt(), rnd.nextInt());
            case 41 -> new NotifyReply(h, rnd.nextLong(), random(rnd, rnd.nextInt(64)));
            case 42 -> {
                List<BatchForget.Item> items = new ArrayList<>();
                for (int i = rnd.nextInt(6); i > 0; i--) {
                    items.add(new BatchForget.Item(NodeId.of(nonZero(rnd)), rnd.nextLong()));
                }
                yield new BatchForget(h, items);
            }
            case 43 -> new Fallocate(h, fh(rnd), rnd.nextLong(), rnd.nextLong(), rnd.nextInt());
            case 44 -> new Readdirplus(h, fh(rnd), rnd.nextLong(), rnd.nextInt(), m9 ? rnd.nextInt() : 0);
            case 45 -> new Rename2(h, nonZero(rnd), rnd.nextInt(), name(rnd), name(rnd));
            case 46 -> new Lseek(h, fh(rnd), rnd.nextLong(), rnd.nextInt());
            case 47, 53 -> new CopyFileRange(h, fh(rnd), rnd.nextLong(), nonZero(rnd), fh(rnd), rnd.nextLong(), rnd.nextLong(),
                    rnd.nextLong(), opcode == 53);
            case 50 -> new Syncfs(h);
            case 51 -> new Tmpfile(h, rnd.nextInt(), rnd.nextInt(), m12 ? rnd.nextInt() : 0, m12 ? rnd.nextInt() : 0, name(rnd));
            case 52 -> new Statx(h, rnd.nextInt(), fh(rnd), rnd.nextInt(), rnd.nextInt());
            default -> new Unknown(h, rnd.nextInt(3) * 8 + rnd.nextInt(8));
        };
    }

    static long nonZero(Random rnd) {
        long v;
        do {
            v = rnd.nextInt(3) == 0 ? 1 + rnd.nextInt(1000) : rnd.nextLong();
        } while (v == 0);
        return v;
    }

    static FileHandle fh(Random rnd) {
        return FileHandle.of(rnd.nextInt(4) == 0 ? 0 : rnd.nextLong());
    }

    static FileLock lock(Random rnd) {
        return new FileLock(rnd.nextLong(), rnd.nextLong(), rnd.nextInt(), rnd.nextInt());
    }

    private static final String ALPHABET = "abcXYZ019._-~ ÄéßЖ漢字😀";

    /** A name of 0..40 code points from a mix of ASCII, Latin-1, Cyrillic, CJK and an emoji; no NUL. */
    static String name(Random rnd) {
        int n = rnd.nextInt(4) == 0 ? 1 + rnd.nextInt(2) : 1 + rnd.nextInt(40); // the kernel sends no empty name
        int[] cps = ALPHABET.codePoints().toArray();
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < n; i++) {
            sb.appendCodePoint(cps[rnd.nextInt(cps.length)]);
        }
        return sb.toString();
    }

    // ---------------------------------------------------------------------------------------------
    // Comparison

    /**
     * Compares two records component by component: arrays by content, the header without {@code len}
     * (which the frame decides), nested records and lists by {@code equals}.
     *
     * @return {@code null} if equal, else a description of the first difference
     */
    static String difference(Object expected, Object actual) {
        if (expected instanceof Incoming.ForFilesystem(FuseRequest e)) {
            return actual instanceof Incoming.ForFilesystem(FuseRequest a) ? difference(e, a) : "type " + expected + " != " + actual;
        }
        if (expected.getClass() != actual.getClass()) {
            return "type " + expected.getClass().getSimpleName() + " != " + actual.getClass().getSimpleName();
        }
        for (RecordComponent c : expected.getClass().getRecordComponents()) {
            Object e;
            Object a;
            try {
                e = c.getAccessor().invoke(expected);
                a = c.getAccessor().invoke(actual);
            } catch (ReflectiveOperationException ex) {
                throw new AssertionError(ex);
            }
            if (e instanceof RequestHeader eh && a instanceof RequestHeader ah) {
                RequestHeader norm = new RequestHeader(ah.len(), eh.opcode(), eh.unique(), eh.nodeid(), eh.uid(), eh.gid(),
                        eh.pid(), eh.totalExtlen());
                if (!norm.equals(ah)) {
                    return "header " + eh + " != " + ah;
                }
            } else if (e instanceof byte[] eb && a instanceof byte[] ab) {
                if (!Arrays.equals(eb, ab)) {
                    return c.getName() + " bytes differ";
                }
            } else if (!Objects.equals(e, a)) {
                return c.getName() + ": " + e + " != " + a;
            }
        }
        return null;
    }
}
