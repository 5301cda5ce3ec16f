package io.github.purefuse.channel.internal.dispatch;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Whether the caller of a request is being killed, from {@code /proc/<pid>/status}: SIGKILL is pending (the
 * kernel adds it to every thread of a process that a fatal signal ends, {@code complete_signal} in
 * {@code kernel/signal.c}: Ctrl-C of {@code cat}, {@code timeout}'s SIGTERM), or a signal is pending that is
 * neither blocked, caught nor ignored and whose default action ends the process (the kernel adds no SIGKILL
 * for it when another signal was already pending: a caught one that interrupted the same wait). A signal the
 * process catches makes it neither.
 *
 * <p>Why it matters: the kernel sends {@code FUSE_INTERRUPT} for any signal that reaches a caller waiting
 * for a reply, and returns the reply's EINTR to the program as it stands; it does not restart the call, not
 * even for a handler installed with {@code SA_RESTART}. A program that catches a timer signal (git's progress
 * display, an interval timer, a profiler) would then see {@code open} or {@code read} fail with EINTR on a
 * regular file, which it never does on a local disk. So an interrupt is honoured only for a caller that is
 * being killed, whose call ends anyway; for another, the request goes on and its reply is the answer.
 */
final class CallerSignals {
    /** SIGKILL (9) in the masks of {@code /proc/<pid>/status} (signal n is bit n - 1). */
    private static final long SIGKILL_BIT = 1L << 8;
    /**
     * The signals whose default action ends the process: all but SIGCHLD, SIGCONT, SIGSTOP, SIGTSTP, SIGTTIN,
     * SIGTTOU, SIGURG (17..23) and SIGWINCH (28), which are ignored or stop it by default.
     */
    private static final long ENDS_BY_DEFAULT = ~(0x7FL << 16 | 1L << 27);
    /** The lines of {@code /proc/<pid>/status} read here. */
    private static final java.util.Set<String> MASKS = java.util.Set.of("SigPnd", "ShdPnd", "SigBlk", "SigIgn", "SigCgt");

    private CallerSignals() {
    }

    /**
     * {@return whether the caller {@code pid} (the {@code pid} of {@code fuse_in_header}, a thread's id in the
     * server's pid namespace) is being killed} True also when that cannot be told: {@code pid} 0 (a caller in
     * another pid namespace, or the kernel), a {@code /proc} that cannot be read (honouring the interrupt is
     * then the safe side: the caller sees EINTR, as without this check), or a caller that is gone.
     */
    static boolean dying(int pid) {
        if (pid <= 0) {
            return true;
        }
        String status;
        try {
            status = Files.readString(Path.of("/proc", Integer.toString(pid), "status"), StandardCharsets.ISO_8859_1);
        } catch (IOException | RuntimeException e) {
            return true; // gone (NoSuchFileException), or unreadable
        }
        long pending = 0;
        long blocked = 0;
        long ignored = 0;
        long caught = 0;
        int seen = 0;
        for (String line : status.split("\n")) {
            String key = line.length() > 7 && line.charAt(6) == ':' ? line.substring(0, 6) : "";
            if (!MASKS.contains(key)) {
                continue;
            }
            long mask;
            try {
                mask = Long.parseUnsignedLong(line.substring(7).strip(), 16);
            } catch (NumberFormatException e) {
                return true; // not the format this reads
            }
            switch (key) {
                case "SigBlk" -> blocked = mask;
                case "SigIgn" -> ignored = mask;
                case "SigCgt" -> caught = mask;
                default -> pending |= mask; // SigPnd (the thread's), ShdPnd (the process's)
            }
            seen++;
        }
        if (seen < MASKS.size()) {
            return true; // not the format this reads
        }
        return (pending & SIGKILL_BIT) != 0 || (pending & ~blocked & ~ignored & ~caught & ENDS_BY_DEFAULT) != 0;
    }
}
