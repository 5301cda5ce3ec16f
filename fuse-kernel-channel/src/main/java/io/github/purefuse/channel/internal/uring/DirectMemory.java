package io.github.purefuse.channel.internal.uring;

import java.lang.management.ManagementFactory;
import java.util.Locale;

/**
 * The JVM's direct memory limit, for a check before the ring entries are allocated: entries that cannot fit
 * at all are refused at once, where allocating them entry by entry until {@code ByteBuffer.allocateDirect}
 * failed grew the process by gigabytes it did not give back.
 * The limit is {@code -XX:MaxDirectMemorySize} (read from the JVM's arguments, as Netty does), else the
 * JVM's default, the largest heap ({@link Runtime#maxMemory()}).
 */
final class DirectMemory {
    private DirectMemory() {
    }

    /** {@return {@code -XX:MaxDirectMemorySize} in bytes, or {@link Runtime#maxMemory()} without it} */
    static long limit() {
        long limit = -1;
        for (String arg : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (arg.startsWith("-XX:MaxDirectMemorySize=")) { // the last one counts, as for the JVM
                limit = parseSize(arg.substring("-XX:MaxDirectMemorySize=".length()));
            }
        }
        return limit > 0 ? limit : Runtime.getRuntime().maxMemory();
    }

    /** {@return a HotSpot size ({@code 512m}, {@code 2G}, {@code 1048576}) in bytes; -1 if it is not one} */
    static long parseSize(String v) {
        String s = v.trim().toLowerCase(Locale.ROOT);
        if (s.isEmpty()) {
            return -1;
        }
        long unit = switch (s.charAt(s.length() - 1)) {
            case 'k' -> 1L << 10;
            case 'm' -> 1L << 20;
            case 'g' -> 1L << 30;
            case 't' -> 1L << 40;
            default -> 1;
        };
        try {
            return Long.parseLong(unit == 1 ? s : s.substring(0, s.length() - 1)) * unit;
        } catch (NumberFormatException e) {
            return -1;
        }
    }
}
