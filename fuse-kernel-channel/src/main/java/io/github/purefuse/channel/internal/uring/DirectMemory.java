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
    private static final System.Logger LOG = System.getLogger(DirectMemory.class.getName());
    /** {@code sun.misc.Unsafe.invokeCleaner(ByteBuffer)} bound to the instance, or null where the JDK lacks it. */
    private static final java.lang.invoke.@org.jspecify.annotations.Nullable MethodHandle INVOKE_CLEANER = invokeCleaner();

    private DirectMemory() {
    }

    private static java.lang.invoke.@org.jspecify.annotations.Nullable MethodHandle invokeCleaner() {
        try {
            Class<?> unsafe = Class.forName("sun.misc.Unsafe");
            java.lang.reflect.Field f = unsafe.getDeclaredField("theUnsafe");
            f.setAccessible(true);   // jdk.unsupported opens sun.misc
            return java.lang.invoke.MethodHandles.lookup()
                    .findVirtual(unsafe, "invokeCleaner",
                            java.lang.invoke.MethodType.methodType(void.class, java.nio.ByteBuffer.class))
                    .bindTo(f.get(null));
        } catch (ReflectiveOperationException | RuntimeException e) {
            LOG.log(System.Logger.Level.DEBUG, "no sun.misc.Unsafe.invokeCleaner: ring buffers are freed by the"
                    + " garbage collector: {0}", e.toString());
            return null;
        }
    }

    /**
     * Frees direct buffers now, as {@code sun.misc.Unsafe.invokeCleaner} does, instead of at a collection
     * (where the JDK lacks it, they are left to the collector). The caller guarantees that nothing, the
     * kernel included, touches their memory again: any access afterwards reads or writes freed memory.
     *
     * @param buffers buffers made by {@code ByteBuffer.allocateDirect} themselves, not slices or duplicates
     * @return whether they were freed
     */
    static boolean free(Iterable<java.nio.ByteBuffer> buffers) {
        java.lang.invoke.MethodHandle h = INVOKE_CLEANER;
        if (h == null) {
            return false;
        }
        try {
            for (java.nio.ByteBuffer b : buffers) {
                h.invokeExact(b);
            }
            return true;
        } catch (Throwable t) {   // invokeExact declares Throwable; IllegalArgumentException for a slice
            LOG.log(System.Logger.Level.WARNING, "freeing ring buffers failed; the collector frees the rest: {0}",
                    t.toString());
            return false;
        }
    }

    /** {@return {@code -XX:MaxDirectMemorySize} in bytes, or {@link Runtime#maxMemory()} without it} */
    static long limit() {
        long limit = -1;
        try {
            for (String arg : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
                if (arg.startsWith("-XX:MaxDirectMemorySize=")) { // the last one counts, as for the JVM
                    limit = parseSize(arg.substring("-XX:MaxDirectMemorySize=".length()));
                }
            }
        } catch (LinkageError e) {
            // the JDK's libmanagement cannot be loaded (EMFILE at the limit of open files): allocateDirect will tell
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
