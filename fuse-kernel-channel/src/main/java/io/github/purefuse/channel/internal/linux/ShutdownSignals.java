package io.github.purefuse.channel.internal.linux;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import sun.misc.Signal;
import sun.misc.SignalHandler;

/**
 * SIGTERM, SIGINT and SIGHUP as requests to end the sessions that asked for it, as libfuse's
 * {@code fuse_set_signal_handlers} does: the handler closes (unmounts) every registered session on a
 * thread of its own, and the JVM keeps running, so that the program returns from
 * {@code awaitTermination} and exits with its own status. The handlers are installed for the first
 * registration and the previous ones (the JVM's: shutdown hooks, then exit status 128 + signal) restored
 * when the last registration is closed. A signal whose disposition is "ignore" when the first session
 * registers (SIGHUP under {@code nohup}, SIGINT of a background job) stays ignored; {@code -Xrs} (the JVM
 * gives up these signals) leaves them to the JVM.
 */
public final class ShutdownSignals {
    private static final Logger LOG = System.getLogger(ShutdownSignals.class.getName());
    private static final List<String> NAMES = List.of("TERM", "INT", "HUP");
    private static final Set<Runnable> SESSIONS = new LinkedHashSet<>();
    private static final Map<String, SignalHandler> PREVIOUS = new HashMap<>();

    private ShutdownSignals() {
    }

    /**
     * Registers a session's close action.
     *
     * @param close what a signal runs (on a new platform thread)
     * @return closing it unregisters; idempotent
     */
    public static AutoCloseable register(Runnable close) {
        synchronized (SESSIONS) {
            if (SESSIONS.isEmpty()) {
                install();
            }
            SESSIONS.add(close);
        }
        return () -> unregister(close);
    }

    private static void unregister(Runnable close) {
        synchronized (SESSIONS) {
            if (SESSIONS.remove(close) && SESSIONS.isEmpty()) {
                restore();
            }
        }
    }

    private static void install() {
        SignalHandler handler = ShutdownSignals::handle;
        for (String name : NAMES) {
            Signal sig = new Signal(name);
            try {
                SignalHandler old = Signal.handle(sig, handler);
                if (old == SignalHandler.SIG_IGN) {
                    Signal.handle(sig, SignalHandler.SIG_IGN);
                } else {
                    PREVIOUS.put(name, old);
                }
            } catch (IllegalArgumentException e) {
                LOG.log(Level.DEBUG, "SIG{0} stays with the JVM: {1}", name, e.getMessage());
            }
        }
    }

    private static void restore() {
        for (Map.Entry<String, SignalHandler> e : PREVIOUS.entrySet()) {
            try {
                Signal.handle(new Signal(e.getKey()), e.getValue());
            } catch (IllegalArgumentException ex) {
                LOG.log(Level.DEBUG, "cannot restore SIG{0}: {1}", e.getKey(), ex.getMessage());
            }
        }
        PREVIOUS.clear();
    }

    private static void handle(Signal sig) {
        List<Runnable> sessions;
        synchronized (SESSIONS) {
            sessions = List.copyOf(SESSIONS);
        }
        LOG.log(Level.DEBUG, "SIG{0}: ending {1} session(s)", sig.getName(), sessions.size());
        for (Runnable close : sessions) {
            Thread.ofPlatform().name("purefuse-SIG" + sig.getName()).start(close);
        }
    }
}
