package io.github.purefuse.channel.internal.loop;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/** Hand-built request frames, little-endian, laid out as in fuse_kernel.h 7.45. */
final class Frames {
    static final int LOOKUP = 1;
    static final int FORGET = 2;
    static final int GETATTR = 3;
    static final int MKDIR = 9;
    static final int READ = 15;
    static final int INIT = 26;
    static final int READDIR = 28;
    static final int INTERRUPT = 36;
    static final int IOCTL = 39;
    static final int READDIRPLUS = 44;

    private Frames() {
    }

    static byte[] frame(int opcode, long unique, long nodeid, byte[] body) {
        ByteBuffer b = ByteBuffer.allocate(40 + body.length).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(40 + body.length).putInt(opcode).putLong(unique).putLong(nodeid)
                .putInt(1000).putInt(1000).putInt(4242).putShort((short) 0).putShort((short) 0).put(body);
        return b.array();
    }

    static byte[] init(long unique, int minor) {
        ByteBuffer b = ByteBuffer.allocate(64).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(7).putInt(minor).putInt(131072).putInt(0x73fffffb).putInt(0x5fd);
        return frame(INIT, unique, 0, b.array());
    }

    static byte[] lookup(long unique, long parent, String name) {
        byte[] n = name.getBytes(StandardCharsets.UTF_8);
        byte[] body = new byte[n.length + 1];
        System.arraycopy(n, 0, body, 0, n.length);
        return frame(LOOKUP, unique, parent, body);
    }

    static byte[] getattr(long unique, long nodeid) {
        return frame(GETATTR, unique, nodeid, new byte[16]);
    }

    static byte[] readIn(int opcode, long unique, long nodeid, long fh, long offset, int size) {
        ByteBuffer b = ByteBuffer.allocate(40).order(ByteOrder.LITTLE_ENDIAN);
        b.putLong(fh).putLong(offset).putInt(size).putInt(0).putLong(0).putInt(0x8000).putInt(0);
        return frame(opcode, unique, nodeid, b.array());
    }

    static byte[] forget(long unique, long nodeid, long nlookup) {
        ByteBuffer b = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(nlookup);
        return frame(FORGET, unique, nodeid, b.array());
    }

    static byte[] mkdir(long unique, long parent, String name) {
        byte[] n = name.getBytes(StandardCharsets.UTF_8);
        ByteBuffer b = ByteBuffer.allocate(8 + n.length + 1).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(0755).putInt(022).put(n).put((byte) 0);
        return frame(MKDIR, unique, parent, b.array());
    }

    static byte[] ioctl(long unique, long nodeid) {
        return frame(IOCTL, unique, nodeid, new byte[32]);
    }

    static byte[] interrupt(long targetUnique) {
        ByteBuffer b = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(targetUnique);
        return frame(INTERRUPT, targetUnique | 1, 0, b.array());
    }

    static int len(byte[] reply) {
        return ByteBuffer.wrap(reply).order(ByteOrder.LITTLE_ENDIAN).getInt(0);
    }

    static int error(byte[] reply) {
        return ByteBuffer.wrap(reply).order(ByteOrder.LITTLE_ENDIAN).getInt(4);
    }

    static long unique(byte[] reply) {
        return ByteBuffer.wrap(reply).order(ByteOrder.LITTLE_ENDIAN).getLong(8);
    }
}
