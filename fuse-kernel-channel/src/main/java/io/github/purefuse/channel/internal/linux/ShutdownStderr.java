package io.github.purefuse.channel.internal.linux;

import java.lang.System.Logger.Level;

/**
 * Standard error for the messages of a session closed by the JVM shutdown hook: java.util.logging resets its
 * handlers in a shutdown hook of its own (other logging frameworks stop in theirs), so what
 * {@code FuseSession.close()} says there (a busy mount detached lazily, a connection aborted 10 s later)
 * would be lost through {@link System.Logger}. The one place library code prints
 * ({@code ArchitectureTest.libraryCodeDoesNotPrint} names it).
 */
public final class ShutdownStderr {
    private ShutdownStderr() {
    }

    /**
     * Prints {@code purefuse: LEVEL: message} on {@code System.err}.
     *
     * @param level   the message's level
     * @param message the message
     */
    public static void print(Level level, String message) {
        System.err.println("purefuse: " + level.getName() + ": " + message);
        System.err.flush();
    }
}
