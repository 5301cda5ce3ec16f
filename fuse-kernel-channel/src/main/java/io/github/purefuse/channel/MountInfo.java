package io.github.purefuse.channel;

import io.github.purefuse.channel.internal.linux.ErrnoException;
import io.github.purefuse.channel.internal.linux.Native;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * One line of the calling process's mount table, {@code /proc/self/mountinfo} (proc(5)): mount point,
 * device ({@code major:minor} of {@code st_dev}), file system type and source of a mount. The SDK's one
 * reader of that table: the session uses it to refuse a busy mount point and to find its connection,
 * tools and tests to find and unmount mounts.
 *
 * {@snippet :
 * Optional<MountInfo> m = MountInfo.at(Path.of("/mnt/depot"));
 * boolean ours = m.isPresent() && m.get().fsType().equals("fuse.depotfs");
 * }
 *
 * @param mountId    the mount's id
 * @param device     {@code major:minor} of the mount's {@code st_dev}, e.g. {@code 0:52}
 * @param mountPoint the mount point, unescaped
 * @param fsType     the file system type, e.g. {@code fuse.hello}
 * @param source     the mount source, unescaped
 */
public record MountInfo(int mountId, String device, String mountPoint, String fsType, String source) {
    private static final Path MOUNTINFO = Path.of("/proc/self/mountinfo");

    /**
     * Reads the table.
     *
     * @return the mounts, in table order (later mounts on the same point are on top)
     * @throws IOException if the file cannot be read
     */
    public static List<MountInfo> read() throws IOException {
        List<MountInfo> out = new ArrayList<>();
        for (String line : Files.readAllLines(MOUNTINFO, StandardCharsets.UTF_8)) {
            MountInfo m = parse(line);
            if (m != null) {
                out.add(m);
            }
        }
        return out;
    }

    /**
     * Parses one line of {@code mountinfo}.
     *
     * @param line the line
     * @return the entry, or {@code null} if the line is malformed
     */
    public static @org.jspecify.annotations.Nullable MountInfo parse(String line) {
        String[] f = line.split(" ");
        int sep = -1;
        for (int i = 6; i < f.length; i++) {
            if (f[i].equals("-")) {
                sep = i;
                break;
            }
        }
        if (f.length < 7 || sep < 0 || sep + 2 >= f.length) {
            return null;
        }
        try {
            return new MountInfo(Integer.parseInt(f[0]), f[2], unescape(f[4]), f[sep + 1], unescape(f[sep + 2]));
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /**
     * The topmost mount whose mount point is {@code path}.
     *
     * @param path an absolute, real path
     * @return the mount, or empty if {@code path} is not a mount point
     * @throws IOException if the table cannot be read
     */
    public static Optional<MountInfo> at(Path path) throws IOException {
        String p = path.toString();
        MountInfo found = null;
        for (MountInfo m : read()) {
            if (m.mountPoint.equals(p)) {
                found = m;
            }
        }
        return Optional.ofNullable(found);
    }

    /**
     * Decodes the octal escapes ({@code \040} for a space, {@code \011}, {@code \012}, {@code \134})
     * that the kernel writes in the fields of {@code /proc/self/mountinfo} and {@code /proc/mounts}
     * ({@code seq_escape} of space, tab, newline and backslash); the decoded bytes are read as UTF-8.
     *
     * @param s a field as the table shows it
     * @return the decoded text; {@code s} itself when it holds no escape
     */
    public static String unescape(String s) {
        if (s.indexOf('\\') < 0) {
            return s;
        }
        byte[] in = s.getBytes(StandardCharsets.UTF_8);
        byte[] out = new byte[in.length];
        int n = 0;
        for (int i = 0; i < in.length; i++) {
            if (in[i] == '\\' && i + 3 < in.length && isOctal(in[i + 1]) && isOctal(in[i + 2]) && isOctal(in[i + 3])) {
                out[n++] = (byte) (((in[i + 1] - '0') << 6) | ((in[i + 2] - '0') << 3) | (in[i + 3] - '0'));
                i += 3;
            } else {
                out[n++] = in[i];
            }
        }
        return new String(out, 0, n, StandardCharsets.UTF_8);
    }

    private static boolean isOctal(byte b) {
        return b >= '0' && b <= '7';
    }

    /** {@return the minor number of {@link #device()}: the connection's directory name in fusectl} */
    public int minor() {
        return Integer.parseInt(device.substring(device.indexOf(':') + 1));
    }

    /** {@return whether this is a FUSE mount: type {@code fuse}, {@code fuse.SUBTYPE}, {@code fuseblk} or {@code fuseblk.SUBTYPE}} */
    public boolean isFuse() {
        return fsType.equals("fuse") || fsType.startsWith("fuse.") || fsType.equals("fuseblk") || fsType.startsWith("fuseblk.");
    }

    private static final Path FUSECTL = Path.of("/sys/fs/fuse/connections");
    private static final Object FUSECTL_LOCK = new Object();

    /**
     * Aborts the FUSE connection of this mount, as {@link FuseSession#abort()} does for a session of this process:
     * for a mount whose server is stopped or hangs (of any process). Every request waiting for the server fails
     * at once (ECONNABORTED), later accesses fail with ENOTCONN; the mount stays until it is unmounted. The only
     * way to free processes that wait for a server that does not run when its requests were handed to an io_uring
     * entry: the kernel then waits for the reply uninterruptibly, and even SIGKILL does not end them.
     *
     * @throws IOException if this is not a FUSE mount, or fusectl cannot be mounted or its {@code abort} written
     *     (root, or the mount's owner with fusectl mounted)
     */
    public void abortConnection() throws IOException {
        if (!isFuse()) {
            throw new IOException(mountPoint + " is not a FUSE mount (" + fsType + ")");
        }
        abortConnection(minor());
    }

    /**
     * Writes {@code 1} to {@code /sys/fs/fuse/connections/MINOR/abort}, mounting the FUSE control file system there
     * first if it is not mounted (and unmounting it again afterwards).
     */
    static void abortConnection(int minor) throws IOException {
        synchronized (FUSECTL_LOCK) {
            Path conn = FUSECTL.resolve(Integer.toString(minor));
            boolean mountedHere = false;
            if (!Files.exists(conn.resolve("abort"), LinkOption.NOFOLLOW_LINKS) && isEmpty(FUSECTL)) {
                Native.mount("fusectl", FUSECTL.toString(), "fusectl", 0, null);
                mountedHere = true;
            }
            try {
                Files.writeString(conn.resolve("abort"), "1", StandardCharsets.US_ASCII);
            } finally {
                if (mountedHere) {
                    try {
                        Native.umount2(FUSECTL.toString(), 0);
                    } catch (ErrnoException e) {
                        Native.umount2(FUSECTL.toString(),
                                Native.MNT_DETACH);
                    }
                }
            }
        }
    }

    private static boolean isEmpty(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.findAny().isEmpty();
        }
    }
}
