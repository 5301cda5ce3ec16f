package io.github.purefuse.channel.internal.codec;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * A little-endian byte appender for hand-built frames in tests; independent of the production
 * {@code Le}/{@code FuseStructs} code on purpose (tests state offsets by what they append).
 */
final class Bytes {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();

    Bytes u8(int v) {
        out.write(v);
        return this;
    }

    Bytes u16(int v) {
        return u8(v & 0xff).u8((v >>> 8) & 0xff);
    }

    Bytes u32(long v) {
        for (int i = 0; i < 4; i++) {
            out.write((int) (v >>> (8 * i)) & 0xff);
        }
        return this;
    }

    Bytes u64(long v) {
        for (int i = 0; i < 8; i++) {
            out.write((int) (v >>> (8 * i)) & 0xff);
        }
        return this;
    }

    Bytes zeros(int n) {
        for (int i = 0; i < n; i++) {
            out.write(0);
        }
        return this;
    }

    Bytes raw(byte[] b) {
        out.writeBytes(b);
        return this;
    }

    /** A name in UTF-8 followed by its NUL. */
    Bytes cstr(String s) {
        return raw(s.getBytes(StandardCharsets.UTF_8)).u8(0);
    }

    int size() {
        return out.size();
    }

    byte[] bytes() {
        return out.toByteArray();
    }

    /** {@code fuse_in_header} for a frame whose body is {@code body}; len is computed. */
    static byte[] request(int opcode, long unique, long nodeid, int uid, int gid, int pid, int extlen, byte[] body) {
        return new Bytes().u32(40 + body.length).u32(opcode).u64(unique).u64(nodeid).u32(uid).u32(gid).u32(pid)
                .u16(extlen).u16(0).raw(body).bytes();
    }

    static byte[] request(int opcode, long unique, long nodeid, byte[] body) {
        return request(opcode, unique, nodeid, 1000, 1000, 4242, 0, body);
    }

    static ByteBuffer buf(byte[] b) {
        return ByteBuffer.wrap(b).order(ByteOrder.BIG_ENDIAN); // the decoder must not care about the order
    }
}
