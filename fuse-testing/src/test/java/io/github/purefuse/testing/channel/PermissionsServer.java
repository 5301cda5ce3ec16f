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
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;

/**
 * A tiny filesystem for {@code NonRootMountIT}, run in a JVM of its own as an unprivileged user: the root
 * directory (0755) holds {@code public.txt} (0444) and {@code private.txt} (0400), all owned by the user
 * who mounts. It does no permission checks itself: what other users may do is the kernel's decision
 * ({@code allow_other}, {@code default_permissions}).
 *
 * <p>Arguments: {@code MOUNTPOINT [allow_other] [no_default_permissions]}. Prints {@code ready} when
 * mounted; SIGTERM unmounts and exits 0.
 */
final class PermissionsServer implements ReadOnlyFileSystem {
    static final List<String> NAMES = List.of("public.txt", "private.txt");
    static final byte[] TEXT = "readable by whom the kernel allows\n".getBytes(StandardCharsets.UTF_8);

    private final int uid = id("uid");
    private final int gid = id("gid");
    private final long initDelayMs;

    PermissionsServer() {
        this(0);
    }

    /** @param initDelayMs how long {@code fs.init} sleeps (a filesystem that connects to its backend there) */
    PermissionsServer(long initDelayMs) {
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

    /**
     * The process's uid or gid: the owner of {@code /proc/self}, which is its effective id (the real one
     * too, for a process started as a user).
     */
    static int id(String which) {
        try {
            return (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:" + which);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private Attr attr(long nodeid) {
        if (nodeid == 1) {
            return Attr.builder(FileType.DIRECTORY).ino(1).permissions(0755).nlink(2).uid(uid).gid(gid).build();
        }
        return Attr.builder(FileType.REGULAR).ino(nodeid).size(TEXT.length).permissions(nodeid == 2 ? 0444 : 0400)
                .uid(uid).gid(gid).build();
    }

    @Override
    public LookupReply lookup(Lookup request) {
        int i = request.header().nodeid() == 1 ? NAMES.indexOf(request.name()) : -1;
        return i < 0 ? Failure.of(Errno.ENOENT)
                : new Entry(NodeId.of(i + 2), 0, attr(i + 2), Duration.ofSeconds(1), Duration.ofSeconds(1));
    }

    @Override
    public AttrReply getattr(Getattr request) {
        long n = request.header().nodeid();
        return n >= 1 && n <= 3 ? new Attributes(attr(n), Duration.ofSeconds(1)) : Failure.of(Errno.ENOENT);
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
        for (int i = (int) request.offset(); i < NAMES.size(); i++) {
            if (!page.add(new DirEntry(NAMES.get(i), i + 2, FileType.REGULAR, i + 1))) {
                break;
            }
        }
        return page.done();
    }

    public static void main(String[] args) throws Exception {
        List<String> flags = List.of(args).subList(1, args.length);
        MountOptions options = MountOptions.builder().fsname("purefuse-perm").subtype("purefuseperm")
                .allowOther(flags.contains("allow_other"))
                .defaultPermissions(!flags.contains("no_default_permissions"))
                .handleSignals(true).build();
        try (FuseSession s = FuseSession.mount(Path.of(args[0]), new PermissionsServer(), options)) {
            System.out.println("ready uid=" + id("uid"));
            System.out.flush();
            s.awaitTermination();
        } catch (io.github.purefuse.channel.MountException e) {
            System.out.println("failed " + e.reason() + ": " + e.getMessage());
            System.out.flush();
            System.exit(1);
        }
    }
}
