package io.github.purefuse.examples.hello;

import io.github.purefuse.api.ReadOnlyFileSystem;
import io.github.purefuse.api.ReadTarget;
import io.github.purefuse.api.reply.AttrReply;
import io.github.purefuse.api.reply.Attributes;
import io.github.purefuse.api.reply.Data;
import io.github.purefuse.api.reply.DirectoryPage;
import io.github.purefuse.api.reply.Entry;
import io.github.purefuse.api.reply.Failure;
import io.github.purefuse.api.reply.LinkTarget;
import io.github.purefuse.api.reply.LookupReply;
import io.github.purefuse.api.reply.NegativeEntry;
import io.github.purefuse.api.reply.ReadReply;
import io.github.purefuse.api.reply.ReaddirReply;
import io.github.purefuse.api.reply.ReadlinkReply;
import io.github.purefuse.api.reply.StatfsReply;
import io.github.purefuse.api.reply.Statistics;
import io.github.purefuse.api.request.FuseRequest;
import io.github.purefuse.api.request.Getattr;
import io.github.purefuse.api.request.Lookup;
import io.github.purefuse.api.request.Read;
import io.github.purefuse.api.request.ReadView;
import io.github.purefuse.api.request.Readdir;
import io.github.purefuse.api.request.Readdirplus;
import io.github.purefuse.api.request.Readlink;
import io.github.purefuse.api.request.Statfs;
import io.github.purefuse.api.types.Attr;
import io.github.purefuse.api.types.BufferLease;
import io.github.purefuse.api.types.DirEntry;
import io.github.purefuse.api.types.Errno;
import io.github.purefuse.api.types.FileType;
import io.github.purefuse.api.types.NodeId;
import io.github.purefuse.api.types.StatfsInfo;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * "Hello, world" for purefuse: a read-only filesystem in one class, and a tutorial on the handler
 * interface.
 *
 * <pre>
 * /                 dr-xr-xr-x  the root (nodeid 1)
 * ├── hello.txt     -r--r--r--  "Hello, World!\n"
 * ├── motd.txt      -r--r--r--  a few lines of text
 * ├── hello.link    lrwxrwxrwx  -&gt; hello.txt
 * └── large.bin     -r--r--r--  5 GiB of computed bytes, see {@link #largeByte(long)}
 * </pre>
 *
 * <h2>1. Nodes</h2>
 * The kernel names every node by a <em>nodeid</em> that the filesystem hands out in entry replies
 * (LOOKUP, READDIRPLUS); the root is always {@link NodeId#ROOT} (1). Because this tree never changes,
 * each node gets a fixed nodeid (2..5) and generation 0, its {@code st_ino} equals its nodeid, and no
 * lookup counting is needed: {@link #forget} keeps its default (do nothing). A filesystem whose nodes
 * come and go keeps an inode table instead (the kit's {@code InodeTable}).
 *
 * <h2>2. Names: {@code lookup}</h2>
 * {@link #lookup} answers an {@link Entry} (nodeid, attributes and how long the kernel may cache both),
 * or a {@link NegativeEntry} for a missing name, which the kernel caches too, so repeated misses cost
 * nothing. Timeouts are long (one hour) because nothing ever changes.
 *
 * <h2>3. Attributes: {@code getattr}</h2>
 * {@link Attr} mirrors {@code struct stat}. Times keep nanoseconds; the owner is the user who mounted.
 *
 * <h2>4. Data: {@code read}</h2>
 * Opens need no handler: the default OPEN answer (ENOSYS) tells the kernel to open every file itself,
 * with its page cache kept, and never ask again. {@link #read} answers with at most
 * {@code request.size()} bytes; fewer means end of file. The small files answer from a byte array
 * ({@link Data#of}, one copy) or, since everything is in memory and never blocks, straight into the
 * transport's own buffer: {@link #readMayBlock(ReadView)} says {@code false}, so the SDK calls
 * {@link #read(ReadView, ReadTarget)} on the thread that read the request, with that thread's reused
 * buffer ({@link ReadTarget}) and its reused view of the request ({@link ReadView}, no record): no
 * hand-off to another thread, no pool, no allocation per READ. The plain
 * {@link #read(Read)} stays for transports without a buffer of their own: it fills a direct buffer from
 * a small pool and hands it over as a {@link BufferLease}, which the SDK closes after the write.
 *
 * <h2>5. Directories: {@code readdir} and {@code readdirplus}</h2>
 * The handler adds entries to the request's {@link DirectoryPage} until it is full; each entry carries
 * a <em>cookie</em>, the position after it, from which the kernel resumes ({@code 0} = start). Because
 * {@link #readdirplus} is implemented, the SDK negotiates READDIRPLUS and {@code ls -l} gets names and
 * attributes in one request.
 *
 * <h2>6. Mounting</h2>
 * {@snippet :
 * try (FuseSession s = FuseSession.mount(Path.of("/mnt/hello"), new HelloFs(), MountOptions.defaults())) {
 *     s.awaitTermination();
 * }
 * }
 * or from the shell: {@code bin/fuse-example hello /mnt/hello}.
 *
 * <p>Thread-safe: the tree is immutable and the buffer pool is concurrent.
 */
public class HelloFs implements ReadOnlyFileSystem {
    /** Size of {@code large.bin}: 5 GiB, so that offsets above 4 GiB are exercised. */
    public static final long LARGE_SIZE = 5L << 30;
    /** Content of {@code hello.txt}. */
    public static final String HELLO = "Hello, World!\n";
    /** Content of {@code motd.txt}. */
    public static final String MOTD = """
            This is purefuse's hello filesystem.
            Every file here is read-only; writes fail with "Read-only file system".
            large.bin holds 5 GiB of bytes computed from their offsets.
            """;
    /** Target of {@code hello.link}. */
    public static final String LINK_TARGET = "hello.txt";
    /** Modification time of every node, with nanoseconds ({@code stat -c %y} shows them). */
    public static final Instant MTIME = Instant.parse("2024-02-29T12:34:56.123456789Z");

    private static final Duration TTL = Duration.ofHours(1);
    private static final int PAGE = 4096;
    /** 256 pages of 4 KiB: page {@code p} of {@code large.bin} equals table page {@code p & 0xFF}. */
    private static final ByteBuffer PATTERN = pattern();

    /** One node of the fixed tree. */
    private record Node(long nodeid, String name, FileType type, long size, byte @Nullable [] bytes) {
    }

    private final List<Node> children;
    private final Node root;
    private final int uid;
    private final int gid;
    private final ArrayBlockingQueue<ByteBuffer> buffers = new ArrayBlockingQueue<>(64);

    /** Creates the filesystem, owned by the user running it. */
    public HelloFs() {
        byte[] hello = HELLO.getBytes(StandardCharsets.UTF_8);
        byte[] motd = MOTD.getBytes(StandardCharsets.UTF_8);
        this.root = new Node(1, "", FileType.DIRECTORY, 0, null);
        this.children = List.of(
                new Node(2, "hello.txt", FileType.REGULAR, hello.length, hello),
                new Node(3, "motd.txt", FileType.REGULAR, motd.length, motd),
                new Node(4, "hello.link", FileType.SYMLINK, LINK_TARGET.length(), null),
                new Node(5, "large.bin", FileType.REGULAR, LARGE_SIZE, null));
        this.uid = idOf("unix:uid");
        this.gid = idOf("unix:gid");
    }

    private static int idOf(String attribute) {
        try {
            return (Integer) Files.getAttribute(Path.of("/proc/self"), attribute);
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }

    /**
     * The content of {@code large.bin}: the byte at offset {@code o} is
     * {@code (o * 31 + (o >>> 12)) & 0xFF}. Within a 4 KiB page the bytes run through a permutation of
     * 0..255 sixteen times; the page number shifts them, so that each page differs from its neighbours and
     * a misplaced page is detected.
     *
     * @param o an offset in bytes, 0 to {@link #LARGE_SIZE} - 1
     * @return the byte there, 0..255
     */
    public static int largeByte(long o) {
        return (int) ((o * 31 + (o >>> 12)) & 0xFF);
    }

    private static ByteBuffer pattern() {
        // (o*31 + (o>>>12)) & 0xFF = (31*(o & 4095) + page) & 0xFF, since 31*4096*page is a multiple of 256.
        ByteBuffer b = ByteBuffer.allocateDirect(256 * PAGE);
        for (int p = 0; p < 256; p++) {
            for (int k = 0; k < PAGE; k++) {
                b.put(p * PAGE + k, (byte) (31 * k + p));
            }
        }
        return b.asReadOnlyBuffer();
    }

    private @Nullable Node node(long nodeid) {
        if (nodeid == 1) {
            return root;
        }
        int i = (int) nodeid - 2;
        return i >= 0 && i < children.size() ? children.get(i) : null;
    }

    private Attr attr(Node n) {
        Attr.Builder b = Attr.builder(n.type()).ino(n.nodeid()).size(n.size()).uid(uid).gid(gid).times(MTIME);
        return switch (n.type()) {
            case DIRECTORY -> b.permissions(0555).nlink(2).build();
            case SYMLINK -> b.permissions(0777).build();
            default -> b.permissions(0444).build();
        };
    }

    private Entry entry(Node n) {
        return new Entry(NodeId.of(n.nodeid()), 0, attr(n), TTL, TTL);
    }

    @Override
    public LookupReply lookup(Lookup request) {
        if (!request.parent().isRoot()) {
            return Failure.of(Errno.ENOTDIR);
        }
        for (Node n : children) {
            if (n.name().equals(request.name())) {
                return entry(n);
            }
        }
        return new NegativeEntry(TTL);
    }

    @Override
    public AttrReply getattr(Getattr request) {
        Node n = node(request.header().nodeid());
        return n == null ? Failure.of(Errno.ENOENT) : new Attributes(attr(n), TTL);
    }

    @Override
    public ReadlinkReply readlink(Readlink request) {
        Node n = node(request.header().nodeid());
        return n != null && n.type() == FileType.SYMLINK ? LinkTarget.of(LINK_TARGET) : Failure.of(Errno.EINVAL);
    }

    /** Everything here is in memory: every request runs on the thread that read it, without a hand-off. */
    @Override
    public boolean mayBlock(FuseRequest request) {
        return false;
    }

    /** Everything here is in memory: READs run on the thread that read them, without a hand-off. */
    @Override
    public boolean readMayBlock(ReadView request) {
        return false;
    }

    /**
     * The inline READ: the bytes go straight into the transport's reused buffer ({@code target}), and the
     * request is the transport thread's borrowed {@link ReadView}, so no buffer is taken from a pool and
     * nothing is allocated per READ.
     */
    @Override
    public ReadReply read(ReadView request, ReadTarget target) {
        Node n = node(request.nodeid());
        if (n == null || n.type() != FileType.REGULAR) {
            return Failure.of(Errno.EISDIR);
        }
        long offset = request.offset();
        if (offset < 0 || offset >= n.size()) {
            return Data.EMPTY;
        }
        int length = (int) Math.min(Integer.toUnsignedLong(request.size()), n.size() - offset);
        ByteBuffer out = target.buffer();
        byte[] bytes = n.bytes();
        if (bytes != null) {
            out.put(bytes, (int) offset, length);
        } else {
            fill(out, offset, length);
        }
        return target.filled();
    }

    /** The READ for a transport without its own buffer: the same bytes, in a pooled lease. */
    @Override
    public ReadReply read(Read request) {
        Node n = node(request.header().nodeid());
        if (n == null || n.type() != FileType.REGULAR) {
            return Failure.of(Errno.EISDIR);
        }
        long offset = request.offset();
        if (offset < 0 || offset >= n.size()) {
            return Data.EMPTY;
        }
        int length = (int) Math.min(Integer.toUnsignedLong(request.size()), n.size() - offset);
        byte[] bytes = n.bytes();
        if (bytes != null) {
            return Data.of(java.util.Arrays.copyOfRange(bytes, (int) offset, (int) offset + length));
        }
        PooledBuffer lease = PooledBuffer.take(buffers, length);
        ByteBuffer out = lease.bytes();
        fill(out, offset, length);
        out.flip();
        return Data.leased(lease);
    }

    /** Writes {@code large.bin}'s bytes {@code [offset, offset + length)} at {@code out}'s position. */
    private static void fill(ByteBuffer out, long offset, int length) {
        long o = offset;
        int end = out.position() + length;
        while (out.position() < end) {
            int k = (int) (o & (PAGE - 1));
            int chunk = Math.min(PAGE - k, end - out.position());
            int from = (int) ((o >>> 12) & 0xFF) * PAGE + k;
            out.put(out.position(), PATTERN, from, chunk);
            out.position(out.position() + chunk);
            o += chunk;
        }
    }

    @Override
    public ReaddirReply readdir(Readdir request, DirectoryPage page) {
        return list(request.header().nodeid(), request.offset(), page);
    }

    @Override
    public ReaddirReply readdirplus(Readdirplus request, DirectoryPage page) {
        return list(request.header().nodeid(), request.offset(), page);
    }

    /**
     * Lists the root from a cookie on: {@code .} has cookie 1, {@code ..} 2, child {@code i} 3 + i.
     */
    private ReaddirReply list(long nodeid, long cookie, DirectoryPage page) {
        if (nodeid != 1) {
            return Failure.of(Errno.ENOTDIR);
        }
        int total = 2 + children.size();
        for (long c = cookie; c < total; c++) {
            boolean added;
            if (c == 0) {
                added = page.add(new DirEntry(".", 1, FileType.DIRECTORY, 1));
            } else if (c == 1) {
                added = page.add(new DirEntry("..", 1, FileType.DIRECTORY, 2));
            } else {
                Node n = children.get((int) c - 2);
                added = page.add(new DirEntry(n.name(), n.nodeid(), n.type(), c + 1), entry(n));
            }
            if (!added) {
                break;
            }
        }
        return page.done();
    }

    @Override
    public StatfsReply statfs(Statfs request) {
        long bytes = 0;
        for (Node n : children) {
            bytes += n.size();
        }
        return new Statistics(StatfsInfo.readOnly(bytes, 1 + children.size()));
    }

    /**
     * A direct buffer lent from a small pool and returned to it when the last lease on it is closed. The
     * kit's Netty-backed leases replace this class in larger filesystems.
     */
    private static final class PooledBuffer implements BufferLease {
        private static final int CAPACITY = 1 << 20;
        private final ArrayBlockingQueue<ByteBuffer> pool;
        private final ByteBuffer buffer;
        private final AtomicInteger refs = new AtomicInteger(1);

        private PooledBuffer(ArrayBlockingQueue<ByteBuffer> pool, ByteBuffer buffer) {
            this.pool = pool;
            this.buffer = buffer;
        }

        static PooledBuffer take(ArrayBlockingQueue<ByteBuffer> pool, int length) {
            ByteBuffer b = length <= CAPACITY ? pool.poll() : null;
            if (b == null) {
                b = ByteBuffer.allocateDirect(Math.max(length, CAPACITY));
            }
            b.clear().limit(length);
            return new PooledBuffer(pool, b);
        }

        @Override
        public ByteBuffer bytes() {
            return buffer;
        }

        @Override
        public BufferLease retain() {
            if (refs.getAndIncrement() <= 0) {
                throw new IllegalStateException("lease already closed");
            }
            return this;
        }

        @Override
        public void close() {
            if (refs.decrementAndGet() == 0 && buffer.capacity() == CAPACITY) {
                pool.offer(buffer);
            }
        }
    }
}
