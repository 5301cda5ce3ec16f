package io.github.purefuse.channel;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

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
}
