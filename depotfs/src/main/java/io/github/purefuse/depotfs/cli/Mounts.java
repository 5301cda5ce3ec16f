package io.github.purefuse.depotfs.cli;

import io.github.purefuse.channel.MountInfo;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/** Reads {@code /proc/self/mountinfo} and unmounts, for the {@code unmount} command. */
final class Mounts {

    private Mounts() {
    }

    /**
     * Finds the mount at a path. The path is normalized without touching the mount point itself, which
     * fails with ENOTCONN when its server died.
     *
     * @param path the mount point as given
     * @return the topmost mount there, or empty
     * @throws IOException if mountinfo cannot be read
     */
    static Optional<MountInfo> at(Path path) throws IOException {
        String wanted = canonical(path).toString();
        MountInfo found = null;
        for (MountInfo m : MountInfo.read()) {
            if (m.mountPoint().equals(wanted)) {
                found = m;
            }
        }
        return Optional.ofNullable(found);
    }

    /**
     * {@return the absolute path with its symlinks resolved, as {@code umount(8)} does: the parent's with
     * {@code realpath}, the last name only when it is a symbolic link itself ({@code lstat}, which does not
     * enter a mount whose server died), so that a dead mount point is named without touching it}
     *
     * @param path a path
     */
    static Path canonical(Path path) {
        Path abs = path.toAbsolutePath().normalize();
        Set<String> mountpoints = new HashSet<>();
        try {
            MountInfo.read().forEach(m -> mountpoints.add(m.mountPoint()));
        } catch (IOException e) {
            // no mountinfo: every name is looked at
        }
        for (int links = 0; links < 40; links++) { // 40: the kernel's MAXSYMLINKS
            Path parent = abs.getParent();
            if (parent == null) {
                return abs;
            }
            try {
                Path realParent = parent.toRealPath();
                abs = realParent.resolve(abs.getFileName());
                // A mount point is no symbolic link, and its lstat would wait for its server: one that hangs
                // (stopped, or stuck in a store) would hang the unmount meant to end it.
                if (mountpoints.contains(abs.toString()) || !Files.isSymbolicLink(abs)) {
                    return abs;
                }
                abs = realParent.resolve(Files.readSymbolicLink(abs)).normalize();
            } catch (IOException e) {
                return abs;
            }
        }
        return abs;
    }

    /**
     * Unmounts a FUSE mount, also one whose server died ("Transport endpoint is not connected"): as root
     * {@code umount}, then {@code umount -l} (MNT_DETACH) if that fails; otherwise {@code fusermount3 -u},
     * then {@code fusermount3 -u -z}.
     *
     * @param mountpoint the mount point
     * @return how it went
     * @throws IOException if no command could be run
     * @throws InterruptedException if interrupted while waiting
     */
    static Unmounted unmount(Path mountpoint) throws IOException, InterruptedException {
        String mp = canonical(mountpoint).toString();
        boolean root = "root".equals(System.getProperty("user.name")) || uid() == 0;
        List<List<String>> attempts = root
                // -c: the path is canonical already; umount(8) would stat it, which waits for a server that hangs
                ? List.of(List.of("umount", "-c", mp), List.of("umount", "-c", "-l", mp))
                : List.of(List.of("fusermount3", "-u", mp), List.of("fusermount3", "-u", "-z", mp));
        String last = "";
        String busy = "";
        for (List<String> cmd : attempts) {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            if (!p.waitFor(30, TimeUnit.SECONDS)) { // its few lines of output fit in the pipe meanwhile
                p.destroyForcibly().waitFor();
                last = String.join(" ", cmd) + ": no answer in 30 s";
                continue;
            }
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            if (p.exitValue() == 0 && at(Path.of(mp)).isEmpty()) {
                return new Unmounted(true, cmd != attempts.get(0), busy);
            }
            last = String.join(" ", cmd) + ": " + out;
            if (busy.isEmpty()) {
                busy = out;
            }
        }
        return new Unmounted(false, false, last);
    }

    /**
     * Where else the mount of a FUSE connection still is, after one of its mount points was unmounted: a bind mount of
     * it in this mount namespace, a copy in another (a container, {@code unshare -m}, a service's private namespace,
     * made while it was mounted). Its server serves on until the last of them is gone. Other namespaces are seen
     * through {@code /proc/PID/mountinfo}, those this user may read; one process named per namespace.
     *
     * @param device the connection's {@code MAJOR:MINOR}, from the mount table
     * @return one phrase per place, e.g. {@code /mnt/other} or
     *     {@code /mnt/x in the mount namespace of process 1234 (nsenter -t 1234 -m umount /mnt/x)}; empty if none
     */
    static List<String> elsewhere(String device) {
        List<String> out = new ArrayList<>();
        try {
            for (MountInfo m : MountInfo.read()) {
                if (m.device().equals(device) && m.isFuse()) {
                    out.add(m.mountPoint());
                }
            }
        } catch (IOException e) {
            return out;
        }
        otherNamespaces((pid, m) -> {
            if (m.device().equals(device) && m.isFuse()) {
                out.add(m.mountPoint() + " in " + namespaceOf(pid, m.mountPoint()));
            }
        });
        return out;
    }

    /**
     * The FUSE mounts at {@code mountPoint} in other mount namespaces (a mount made inside {@code unshare -m}, a
     * container, a service's private namespace), for a mount point that is not mounted in this one.
     *
     * @param mountPoint the canonical path
     * @return one phrase per namespace, e.g. {@code the mount namespace of process 1234 (nsenter -t 1234 -m umount
     *     /mnt/x)}; empty if none
     */
    static List<String> inOtherNamespaces(String mountPoint) {
        List<String> out = new ArrayList<>();
        otherNamespaces((pid, m) -> {
            if (m.mountPoint().equals(mountPoint) && m.isFuse()) {
                out.add(namespaceOf(pid, mountPoint));
            }
        });
        return out;
    }

    /** {@return "the mount namespace of process PID (nsenter -t PID -m umount MOUNTPOINT)": where, and how to unmount it there} */
    private static String namespaceOf(String pid, String mountPoint) {
        return "the mount namespace of process " + pid + " (nsenter -t " + pid + " -m umount " + mountPoint + ")";
    }

    /** Calls {@code each} with every mount of every other mount namespace, once per namespace, that this user may read. */
    private static void otherNamespaces(java.util.function.BiConsumer<String, MountInfo> each) {
        String self;
        try {
            self = Files.readSymbolicLink(Path.of("/proc/self/ns/mnt")).toString();
        } catch (IOException | UnsupportedOperationException e) {
            return;
        }
        Set<String> seen = new HashSet<>(Set.of(self));
        try (var procs = Files.newDirectoryStream(Path.of("/proc"), p -> p.getFileName().toString().matches("[0-9]+"))) {
            for (Path proc : procs) {
                try {
                    String ns = Files.readSymbolicLink(proc.resolve("ns/mnt")).toString();
                    if (!seen.add(ns)) {
                        continue;
                    }
                    String table = new String(Files.readAllBytes(proc.resolve("mountinfo")), StandardCharsets.UTF_8);
                    for (String line : table.split("\n")) {
                        MountInfo m = MountInfo.parse(line);
                        if (m != null) {
                            each.accept(proc.getFileName().toString(), m);
                        }
                    }
                } catch (IOException | RuntimeException e) {
                    // gone meanwhile, or not ours to read
                }
            }
        } catch (IOException e) {
            // no /proc to read: nothing known elsewhere
        }
    }

    /**
     * What {@link #unmount} did.
     *
     * @param done   whether the mount is gone from the mount table
     * @param lazy   whether only the lazy detach worked: the first attempt failed (usually: the mount was
     *               busy), so the mount left the namespace but lives on until its last open file or
     *               working directory is closed, and only then the server ends
     * @param detail the first attempt's output when {@code lazy}; the last attempt's output when not
     *               {@code done}
     */
    record Unmounted(boolean done, boolean lazy, String detail) {
    }

    /** {@return this process's effective uid, from the owner of /proc/self} */
    static int uid() {
        try {
            return (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid");
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /** {@return this process's effective gid, from the group of /proc/self} */
    static int gid() {
        try {
            return (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:gid");
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }
}
