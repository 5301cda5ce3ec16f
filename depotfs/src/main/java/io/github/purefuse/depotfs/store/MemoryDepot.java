package io.github.purefuse.depotfs.store;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.ReadableByteChannel;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

/**
 * A depot held in memory, for tests and small fixtures. Same format and hashes as {@link LocalDepot}
 * (manifests are the same canonical bytes), no durability. Thread-safe.
 */
public final class MemoryDepot implements WritableDepot {

    private final Map<Hash, ByteBuffer> blobs = new ConcurrentHashMap<>();
    private final Map<Hash, byte[]> chunkSums = new ConcurrentHashMap<>();
    private final ConcurrentSkipListMap<String, Hash> roots = new ConcurrentSkipListMap<>();
    private final ReentrantLock rootLock = new ReentrantLock();

    /** Creates an empty depot. */
    public MemoryDepot() {
    }

    @Override
    public boolean remote() {
        return false;
    }

    @Override
    public String describe() {
        return "in-memory depot";
    }

    @Override
    public SortedMap<String, Hash> roots() {
        return new TreeMap<>(roots);
    }

    @Override
    public Optional<Hash> root(String name) {
        return Optional.ofNullable(roots.get(name));
    }

    @Override
    public Bundle bundle(Hash hash) throws IOException {
        ByteBuffer b = blobs.get(hash);
        if (b == null) {
            throw new DepotException(DepotException.Reason.NOT_FOUND, "missing manifest " + hash.shortHex());
        }
        byte[] bytes = new byte[b.remaining()];
        b.duplicate().get(bytes);
        return ManifestCodec.decode(hash, bytes);
    }

    @Override
    public DepotObject open(Hash hash, long size) throws IOException {
        ByteBuffer b = blobs.get(hash);
        if (b == null) {
            throw new DepotException(DepotException.Reason.NOT_FOUND, "missing object " + hash.shortHex());
        }
        if (b.remaining() != size) {
            throw new DepotException(DepotException.Reason.CORRUPT, "corrupt object " + hash.shortHex() + ": "
                    + b.remaining() + " bytes stored, the manifest says " + size);
        }
        return new MemoryObject(b);
    }

    private record MemoryObject(ByteBuffer content) implements DepotObject {
        @Override
        public long size() {
            return content.remaining();
        }

        @Override
        public int read(ByteBuffer dst, long offset) {
            if (offset < 0) {
                throw new IllegalArgumentException("negative offset " + offset);
            }
            if (offset >= content.remaining()) {
                return 0;
            }
            int n = (int) Math.min(dst.remaining(), content.remaining() - offset);
            dst.put(dst.position(), content, (int) offset, n);
            dst.position(dst.position() + n);
            return n;
        }

        @Override
        public void close() {
        }
    }

    /**
     * Stores bytes (test convenience).
     *
     * @param bytes the content
     * @return the outcome
     */
    public Stored putObject(byte[] bytes) {
        Hash h = Hash.sha256(bytes);
        ChunkSums.Builder sums = ChunkSums.builder(ChunkSums.DEFAULT_CHUNK_SIZE);
        sums.update(ByteBuffer.wrap(bytes));
        putChunkSums(sums.finish(h));
        ByteBuffer prev = blobs.putIfAbsent(h, ByteBuffer.wrap(bytes.clone()).asReadOnlyBuffer());
        return new Stored(h, bytes.length, prev == null);
    }

    /**
     * Replaces the stored bytes of a hash without checking them (its chunk checksums stay): only for tests
     * of corruption handling.
     *
     * @param hash  the hash whose content to replace
     * @param bytes the new (wrong) content
     */
    public void corruptForTesting(Hash hash, byte[] bytes) {
        blobs.put(hash, ByteBuffer.wrap(bytes.clone()).asReadOnlyBuffer());
    }

    @Override
    public void putChunkSums(ChunkSums sums) {
        chunkSums.put(sums.object(), sums.encode());
    }

    @Override
    public Optional<ChunkSums> chunkSums(Hash object, long size) throws IOException {
        byte[] b = chunkSums.get(object);
        return b == null ? Optional.empty() : Optional.of(ChunkSums.decode(b, object, size));
    }

    @Override
    public boolean hasObject(Hash hash, long size) {
        ByteBuffer b = blobs.get(hash);
        return b != null && b.remaining() == size;
    }

    @Override
    public Stored putObject(ReadableByteChannel source, @Nullable Hash expected) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteBuffer buf = ByteBuffer.allocate(64 * 1024);
        var sink = Channels.newChannel(out);
        while (source.read(buf) >= 0) {
            buf.flip();
            sink.write(buf);
            buf.clear();
        }
        byte[] bytes = out.toByteArray();
        Hash h = Hash.sha256(bytes);
        if (expected != null && !expected.equals(h)) {
            throw DepotException.sourceChanged(h, expected);
        }
        return putObject(bytes);
    }

    @Override
    public Stored putBundle(List<BundleEntry> entries) throws IOException {
        return putObject(ManifestDraft.of(this, entries).encode());
    }

    @Override
    public void setRoot(String name, @Nullable Hash expected, Hash bundle) throws IOException {
        WritableDepot.requireRootName(name);
        bundle(bundle);
        rootLock.lock();
        try {
            Hash current = roots.get(name);
            if (!java.util.Objects.equals(expected, current)) {
                throw DepotException.rootChanged(name, expected, current);
            }
            roots.put(name, bundle);
        } finally {
            rootLock.unlock();
        }
    }

    /**
     * Removes a root, as deleting its {@code refs/} file would in a local depot (tests of a refresh).
     *
     * @param name the root
     */
    public void removeRootForTesting(String name) {
        rootLock.lock();
        try {
            roots.remove(name);
        } finally {
            rootLock.unlock();
        }
    }

    @Override
    public void close() {
    }
}
