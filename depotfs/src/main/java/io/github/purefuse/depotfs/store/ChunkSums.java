package io.github.purefuse.depotfs.store;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.zip.CRC32C;

/**
 * The chunk checksums of one object (FORMAT.md, "Chunk checksums"): the object cut into chunks of
 * {@link #chunkSize()} bytes (the last one shorter), and the CRC-32C of each. They let a reader check any
 * chunk it reads without reading the whole object, so that the mount never serves bytes that differ
 * from what was imported (a flipped bit, a zeroed block, a torn write).
 *
 * <p>CRC-32C finds accidental damage (every burst of up to 32 bits, any other change with probability
 * 1 − 2⁻³²), not a change made on purpose: the object's SHA-256 name, checked on write and by
 * {@code depotfs verify}, stays the strong check.
 *
 * <p>Stored form, {@value #HEADER} + 4 × {@link #count()} + 4 bytes, big-endian:
 * {@code "depotck1"}, the chunk size (u32), the object's size (u64), the object's SHA-256 (32 bytes), one
 * CRC-32C per chunk (u32), and the CRC-32C of all bytes before it (so that damage to the checksums
 * themselves is found as well). Immutable and thread-safe.
 */
public final class ChunkSums {

    /** The chunk size {@code depotfs import} writes: 64 KiB. */
    public static final int DEFAULT_CHUNK_SIZE = 64 * 1024;
    /** Bytes before the first checksum. */
    public static final int HEADER = 8 + 4 + 8 + Hash.BYTES;
    private static final byte[] MAGIC = "depotck1".getBytes(StandardCharsets.US_ASCII);
    private static final int MIN_CHUNK = 4096;
    private static final int MAX_CHUNK = 16 * 1024 * 1024;

    private final Hash object;
    private final long size;
    private final int chunkSize;
    private final int shift;
    private final int[] crcs;

    private ChunkSums(Hash object, long size, int chunkSize, int[] crcs) {
        this.object = object;
        this.size = size;
        this.chunkSize = chunkSize;
        this.shift = Integer.numberOfTrailingZeros(chunkSize);
        this.crcs = crcs;
    }

    /** {@return the object these checksums describe} */
    public Hash object() {
        return object;
    }

    /** {@return the object's size in bytes} */
    public long size() {
        return size;
    }

    /** {@return the chunk size in bytes: a power of two from 4 KiB to 16 MiB} */
    public int chunkSize() {
        return chunkSize;
    }

    /** {@return the number of chunks: {@code ceil(size / chunkSize)}} */
    public int count() {
        return crcs.length;
    }

    /**
     * {@return the chunk that holds a byte}
     *
     * @param offset a byte offset, {@code 0 <= offset < size}
     */
    public int chunkOf(long offset) {
        return (int) (offset >>> shift);
    }

    /**
     * {@return where a chunk starts, in bytes}
     *
     * @param chunk the chunk's index
     */
    public long start(int chunk) {
        return (long) chunk << shift;
    }

    /**
     * {@return the length of a chunk: {@link #chunkSize()}, or less for the last one}
     *
     * @param chunk the chunk's index
     */
    public int length(int chunk) {
        return (int) Math.min(chunkSize, size - start(chunk));
    }

    /**
     * Checks one chunk's bytes.
     *
     * @param chunk the chunk's index
     * @param bytes exactly the chunk's bytes, from position to limit (not consumed)
     * @return whether their CRC-32C is the stored one
     */
    public boolean matches(int chunk, ByteBuffer bytes) {
        if (bytes.remaining() != length(chunk)) {
            return false;
        }
        CRC32C c = new CRC32C();
        c.update(bytes.duplicate());
        return (int) c.getValue() == crcs[chunk];
    }

    /**
     * {@return the stored CRC-32C of a chunk, for messages}
     *
     * @param chunk the chunk's index
     */
    public int crc(int chunk) {
        return crcs[chunk];
    }

    /** {@return the stored form} */
    public byte[] encode() {
        ByteBuffer b = ByteBuffer.allocate(HEADER + 4 * crcs.length + 4).order(ByteOrder.BIG_ENDIAN);
        b.put(MAGIC).putInt(chunkSize).putLong(size).put(object.toBytes());
        for (int crc : crcs) {
            b.putInt(crc);
        }
        CRC32C c = new CRC32C();
        c.update(b.array(), 0, b.position());
        b.putInt((int) c.getValue());
        return b.array();
    }

    /**
     * The most bytes the stored checksums of an object of {@code size} bytes can take (those of the smallest
     * chunk size): a larger file is damaged, and is refused before it is read.
     *
     * @param size the object's size in bytes
     * @return {@value #HEADER} + 4 × the number of 4 KiB chunks + 4
     */
    public static long maxStoredBytes(long size) {
        long chunks = size / MIN_CHUNK + (size % MIN_CHUNK == 0 ? 0 : 1);   // no overflow near 2^63
        return chunks > (Long.MAX_VALUE - HEADER - 4) / 4 ? Long.MAX_VALUE : HEADER + 4 * chunks + 4;
    }

    /**
     * Parses and checks the stored form.
     *
     * @param bytes  the stored bytes
     * @param object the object they must describe
     * @param size   the object's size (the manifest's)
     * @return the checksums
     * @throws DepotException with {@link DepotException.Reason#CORRUPT} if the bytes are damaged (their own
     *     CRC fails, bad magic or chunk size, wrong length) or describe another object or size
     */
    public static ChunkSums decode(byte[] bytes, Hash object, long size) throws DepotException {
        String what = "chunk checksums of object " + object.shortHex();
        if (bytes.length < HEADER + 4 || (bytes.length - HEADER - 4) % 4 != 0) {
            throw new DepotException(DepotException.Reason.CORRUPT, "corrupt " + what + ": " + bytes.length
                    + " bytes, too short or a wrong length for a checksum file");
        }
        CRC32C c = new CRC32C();
        c.update(bytes, 0, bytes.length - 4);
        ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.BIG_ENDIAN);
        if ((int) c.getValue() != b.getInt(bytes.length - 4)
                || !Arrays.equals(bytes, 0, MAGIC.length, MAGIC, 0, MAGIC.length)) {
            throw new DepotException(DepotException.Reason.CORRUPT, "corrupt " + what + ": their own check fails");
        }
        b.position(MAGIC.length);
        int chunk = b.getInt();
        long storedSize = b.getLong();
        byte[] h = new byte[Hash.BYTES];
        b.get(h);
        if (chunk < MIN_CHUNK || chunk > MAX_CHUNK || Integer.bitCount(chunk) != 1) {
            throw new DepotException(DepotException.Reason.CORRUPT, "corrupt " + what + ": chunk size " + chunk);
        }
        if (!Hash.of(h).equals(object) || storedSize != size) {
            throw new DepotException(DepotException.Reason.CORRUPT, "corrupt " + what + ": they describe "
                    + Hash.of(h).shortHex() + " of " + storedSize + " bytes, not " + size + " bytes");
        }
        long count = (size + chunk - 1) / chunk;
        if (count != (bytes.length - HEADER - 4) / 4) {
            throw new DepotException(DepotException.Reason.CORRUPT, "corrupt " + what + ": "
                    + (bytes.length - HEADER - 4) / 4 + " checksums for " + count + " chunks");
        }
        int[] crcs = new int[(int) count];
        for (int i = 0; i < crcs.length; i++) {
            crcs[i] = b.getInt();
        }
        return new ChunkSums(object, size, chunk, crcs);
    }

    /**
     * {@return a builder that takes an object's bytes in order, in pieces of any size}
     *
     * @param chunkSize the chunk size: a power of two from 4 KiB to 16 MiB
     */
    public static Builder builder(int chunkSize) {
        if (chunkSize < MIN_CHUNK || chunkSize > MAX_CHUNK || Integer.bitCount(chunkSize) != 1) {
            throw new IllegalArgumentException("a chunk size is a power of two from 4 KiB to 16 MiB: " + chunkSize);
        }
        return new Builder(chunkSize);
    }

    /** Computes the checksums while an object is written. Not thread-safe. */
    public static final class Builder {
        private final int chunkSize;
        private final CRC32C crc = new CRC32C();
        private int[] crcs = new int[16];
        private int count;
        private int inChunk;
        private long size;

        private Builder(int chunkSize) {
            this.chunkSize = chunkSize;
        }

        /**
         * Adds the next bytes of the object.
         *
         * @param bytes from position to limit (not consumed)
         */
        public void update(ByteBuffer bytes) {
            ByteBuffer b = bytes.duplicate();
            while (b.hasRemaining()) {
                int n = Math.min(b.remaining(), chunkSize - inChunk);
                ByteBuffer piece = b.slice(b.position(), n);
                crc.update(piece);
                b.position(b.position() + n);
                inChunk += n;
                size += n;
                if (inChunk == chunkSize) {
                    endChunk();
                }
            }
        }

        private void endChunk() {
            if (count == crcs.length) {
                crcs = Arrays.copyOf(crcs, count * 2);
            }
            crcs[count++] = (int) crc.getValue();
            crc.reset();
            inChunk = 0;
        }

        /**
         * Ends the object.
         *
         * @param object the object's hash
         * @return the checksums of all bytes added
         */
        public ChunkSums finish(Hash object) {
            if (inChunk > 0) {
                endChunk();
            }
            return new ChunkSums(object, size, chunkSize, Arrays.copyOf(crcs, count));
        }
    }
}
