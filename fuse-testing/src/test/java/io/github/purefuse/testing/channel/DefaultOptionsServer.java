package io.github.purefuse.testing.channel;

import io.github.purefuse.api.FuseConnection;
import io.github.purefuse.api.ReadOnlyFileSystem;
import io.github.purefuse.api.reply.AttrReply;
import io.github.purefuse.api.reply.Attributes;
import io.github.purefuse.api.reply.Data;
import io.github.purefuse.api.reply.DirectoryPage;
import io.github.purefuse.api.reply.Entry;
import io.github.purefuse.api.reply.Failure;
import io.github.purefuse.api.reply.LookupReply;
import io.github.purefuse.api.reply.OpenReply;
import io.github.purefuse.api.reply.Opened;
import io.github.purefuse.api.reply.ReadReply;
import io.github.purefuse.api.reply.ReaddirReply;
import io.github.purefuse.api.request.Getattr;
import io.github.purefuse.api.request.Lookup;
import io.github.purefuse.api.request.Open;
import io.github.purefuse.api.request.Read;
import io.github.purefuse.api.request.Readdir;
import io.github.purefuse.api.types.Attr;
import io.github.purefuse.api.types.DirEntry;
import io.github.purefuse.api.types.Errno;
import io.github.purefuse.api.types.FileHandle;
import io.github.purefuse.api.types.FileType;
import io.github.purefuse.api.types.NodeId;
import io.github.purefuse.api.types.OpenFlag;
import io.github.purefuse.channel.FuseSession;
import io.github.purefuse.channel.MountOptions;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;

/**
 * A library server as a new user writes it, for {@code ShutdownHookIT}, run in a JVM of its own: one file,
 * {@code file.txt}, mounted with {@link MountOptions#defaults()} (the JVM's own SIGTERM/SIGINT handling and
 * the session's shutdown hook), served until the session ends.
 *
 * <p>Arguments: {@code MOUNTPOINT [INIT_DELAY_MS]}: {@code fs.init} sleeps that long (a filesystem that
 * connects to its backend there), which widens the window between mount(2) and the end of
 * {@link FuseSession#mount}. Prints {@code ready} when mounted.
 */
final class DefaultOptionsServer implements ReadOnlyFileSystem {
    static final byte[] TEXT = "served with the default options\n".getBytes(StandardCharsets.UTF_8);

    private final long initDelayMs;

    private DefaultOptionsServer(long initDelayMs) {
        this.initDelayMs = initDelayMs;
    }

    @Override
    public void init(FuseConnection connection) {
        try {
            Thread.sleep(initDelayMs);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static Attr attr(long nodeid) {
        return nodeid == 1 ? Attr.builder(FileType.DIRECTORY).ino(1).permissions(0755).nlink(2).build()
                : Attr.builder(FileType.REGULAR).ino(2).size(TEXT.length).permissions(0444).build();
    }

    @Override
    public LookupReply lookup(Lookup request) {
        return request.header().nodeid() == 1 && request.name().equals("file.txt")
                ? new Entry(NodeId.of(2), 0, attr(2), Duration.ofSeconds(1), Duration.ofSeconds(1))
                : Failure.of(Errno.ENOENT);
    }

    @Override
    public AttrReply getattr(Getattr request) {
        long n = request.header().nodeid();
        return n == 1 || n == 2 ? new Attributes(attr(n), Duration.ofSeconds(1)) : Failure.of(Errno.ENOENT);
    }

    @Override
    public OpenReply open(Open request) {
        return Opened.of(FileHandle.NONE, OpenFlag.KEEP_CACHE);
    }

    @Override
    public ReadReply read(Read request) {
        int from = (int) Math.min(request.offset(), TEXT.length);
        int to = (int) Math.min(TEXT.length, from + (long) request.size());
        return Data.of(Arrays.copyOfRange(TEXT, from, to));
    }

    @Override
    public ReaddirReply readdir(Readdir request, DirectoryPage page) {
        if (request.offset() == 0) {
            page.add(new DirEntry("file.txt", 2, FileType.REGULAR, 1));
        }
        return page.done();
    }

    public static void main(String[] args) throws Exception {
        long delay = args.length > 1 ? Long.parseLong(args[1]) : 0;
        try (FuseSession s = FuseSession.mount(Path.of(args[0]), new DefaultOptionsServer(delay), MountOptions.defaults())) {
            System.out.println("ready");
            System.out.flush();
            s.awaitTermination();
        }
    }
}
