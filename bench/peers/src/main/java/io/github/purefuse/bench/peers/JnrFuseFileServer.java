package io.github.purefuse.bench.peers;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import jnr.ffi.Pointer;
import jnr.ffi.types.off_t;
import jnr.ffi.types.size_t;
import ru.serce.jnrfuse.ErrorCodes;
import ru.serce.jnrfuse.FuseFillDir;
import ru.serce.jnrfuse.FuseStubFS;
import ru.serce.jnrfuse.struct.FileStat;
import ru.serce.jnrfuse.struct.FuseFileInfo;

/**
 * jnr-fuse 0.5.8 over libfuse 2 (Debian {@code libfuse2}) serving one regular file read-only: a root
 * directory holding {@code FILE}'s base name, with {@code FILE}'s size and bytes. READ is served the way
 * jnr-fuse's own examples do it: into a heap {@code byte[]} (reused per libfuse worker thread, so the
 * comparison is not about allocation), then {@link Pointer#put(long, byte[], int, int)} into libfuse's
 * buffer. libfuse 2 runs its multi-threaded loop and negotiates no {@code max_pages}: READs are at most
 * 128 KiB, as for every jnr-fuse user.
 *
 * <p>Usage: {@code java -cp peers.jar io.github.purefuse.bench.peers.JnrFuseFileServer FILE MOUNTPOINT
 * [libfuse options, e.g. -o ro]}; stays in the foreground until the mount is unmounted (exit 0) or the
 * process gets SIGTERM (unmounts, exit 143).
 */
public final class JnrFuseFileServer extends FuseStubFS {
    private static final int BUFFER = 128 * 1024;

    private final FileChannel data;
    private final String path;
    private final long size;
    private final ThreadLocal<byte[]> buffers = ThreadLocal.withInitial(() -> new byte[BUFFER]);

    private JnrFuseFileServer(Path file) throws IOException {
        this.data = FileChannel.open(file, StandardOpenOption.READ);
        this.path = "/" + file.getFileName();
        this.size = data.size();
    }

    @Override
    public int getattr(String p, FileStat stat) {
        if (p.equals("/")) {
            stat.st_mode.set(FileStat.S_IFDIR | 0555);
            stat.st_nlink.set(2);
        } else if (p.equals(path)) {
            stat.st_mode.set(FileStat.S_IFREG | 0444);
            stat.st_nlink.set(1);
            stat.st_size.set(size);
        } else {
            return -ErrorCodes.ENOENT();
        }
        return 0;
    }

    @Override
    public int readdir(String p, Pointer buf, FuseFillDir filler, @off_t long offset, FuseFileInfo fi) {
        if (!p.equals("/")) {
            return -ErrorCodes.ENOENT();
        }
        filler.apply(buf, ".", null, 0);
        filler.apply(buf, "..", null, 0);
        filler.apply(buf, path.substring(1), null, 0);
        return 0;
    }

    @Override
    public int open(String p, FuseFileInfo fi) {
        return p.equals(path) ? 0 : -ErrorCodes.ENOENT();
    }

    @Override
    public int read(String p, Pointer buf, @size_t long want, @off_t long offset, FuseFileInfo fi) {
        if (!p.equals(path)) {
            return -ErrorCodes.ENOENT();
        }
        byte[] b = buffers.get();
        if (b.length < want) {
            b = new byte[(int) want];
            buffers.set(b);
        }
        int len = (int) Math.max(0, Math.min(want, size - offset));
        ByteBuffer bb = ByteBuffer.wrap(b, 0, len);
        try {
            while (bb.hasRemaining()) {
                if (data.read(bb, offset + bb.position()) < 0) {
                    break;
                }
            }
        } catch (IOException e) {
            return -ErrorCodes.EIO();
        }
        buf.put(0, b, 0, bb.position());
        return bb.position();
    }

    /**
     * Mounts and serves until unmounted.
     *
     * @param args {@code FILE MOUNTPOINT [libfuse options]}
     * @throws IOException if FILE cannot be opened
     */
    public static void main(String[] args) throws IOException {
        if (args.length < 2) {
            System.err.println("usage: JnrFuseFileServer FILE MOUNTPOINT [libfuse options]");
            System.exit(2);
        }
        JnrFuseFileServer fs = new JnrFuseFileServer(Path.of(args[0]));
        Runtime.getRuntime().addShutdownHook(new Thread(fs::umount));
        String[] opts = Arrays.copyOfRange(args, 2, args.length);
        fs.mount(Path.of(args[1]), true, false, opts);
        System.exit(0);
    }
}
