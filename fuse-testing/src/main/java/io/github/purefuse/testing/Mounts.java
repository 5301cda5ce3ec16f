package io.github.purefuse.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Helpers around {@code /proc/mounts} for tests that mount. */
public final class Mounts {

    private Mounts() {
    }

    /**
     * Tells whether a directory is a mountpoint listed in {@code /proc/mounts}.
     *
     * @param mountpoint the directory
     * @return true if a mount with that target exists
     * @throws IOException if {@code /proc/mounts} cannot be read
     */
    public static boolean isMounted(Path mountpoint) throws IOException {
        String target = mountpoint.toAbsolutePath().normalize().toString();
        for (String[] m : mounts()) {
            if (m[1].equals(target)) {
                return true;
            }
        }
        return false;
    }

    /**
     * The FUSE mounts of {@code /proc/mounts} whose target lies under a directory.
     *
     * @param dir the directory
     * @return their targets
     * @throws IOException if {@code /proc/mounts} cannot be read
     */
    public static List<String> fuseMountsUnder(Path dir) throws IOException {
        String base = dir.toAbsolutePath().normalize().toString();
        List<String> out = new ArrayList<>();
        for (String[] m : mounts()) {
            if (m[2].startsWith("fuse") && (m[1].equals(base) || m[1].startsWith(base + "/"))) {
                out.add(m[1]);
            }
        }
        return out;
    }

    /**
     * The last resort after a failed unmount: {@code umount -l} (lazy, {@code MNT_DETACH}), which always
     * detaches the mount from the tree.
     *
     * @param mountpoint the directory
     * @return true if it is no longer mounted afterwards
     * @throws IOException if {@code umount} cannot be run
     * @throws InterruptedException if interrupted while waiting
     */
    public static boolean lazyUnmount(Path mountpoint) throws IOException, InterruptedException {
        Process p = new ProcessBuilder("umount", "-l", mountpoint.toAbsolutePath().toString())
                .redirectErrorStream(true).start();
        p.getInputStream().readAllBytes();
        p.waitFor(30, TimeUnit.SECONDS);
        return !isMounted(mountpoint);
    }

    /** Each line of /proc/mounts as {source, target, fstype, options}, octal escapes decoded. */
    private static List<String[]> mounts() throws IOException {
        List<String[]> out = new ArrayList<>();
        for (String line : Files.readAllLines(Path.of("/proc/mounts"), StandardCharsets.UTF_8)) {
            String[] f = line.split(" ");
            if (f.length >= 4) {
                out.add(new String[] {unescape(f[0]), unescape(f[1]), f[2], f[3]});
            }
        }
        return out;
    }

    private static String unescape(String s) {
        if (s.indexOf('\\') < 0) {
            return s;
        }
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '\\' && i + 3 < s.length()) {
                sb.append((char) Integer.parseInt(s.substring(i + 1, i + 4), 8));
                i += 3;
            } else {
                sb.append(c);
            }
        }
        return sb.toString();
    }
}
