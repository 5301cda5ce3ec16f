package io.github.purefuse.channel.internal.linux;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * SIGTERM, SIGINT and SIGHUP as requests to end the sessions that asked for it, as libfuse's
 * {@code fuse_set_signal_handlers} does: the handler closes (unmounts) every registered session on a
 * thread of its own, and the JVM keeps running, so that the program returns from
 * {@code awaitTermination} and exits with its own status. The handlers are installed for the first
 * registration and the previous ones (the JVM's: shutdown hooks, then exit status 128 + signal) restored
 * when the last registration is closed. A signal whose disposition is "ignore" when the first session
 * registers (SIGHUP under {@code nohup}, SIGINT of a background job) stays ignored; {@code -Xrs} (the JVM
 * gives up these signals) leaves them to the JVM.
 *
 * <p>The JDK's only API for this is {@code sun.misc.Signal} (module {@code jdk.unsupported}); it is used
 * through reflection so that neither javac nor javadoc warn about an internal API. Without it, sessions
 * keep the JVM's handling and a line is logged.
 */
public final class ShutdownSignals {
    private static final Logger LOG = System.getLogger(ShutdownSignals.class.getName());
    private static final List<String> NAMES = List.of("TERM", "INT", "HUP");
    private static final Set<Runnable> SESSIONS = new LinkedHashSet<>();
    private static final Map<String, Object> PREVIOUS = new HashMap<>();
    private static final @Nullable Jdk JDK = Jdk.find();

    private ShutdownSignals() {
    }

    /** {@code sun.misc.Signal} and {@code SignalHandler}, found at run time. */
    private record Jdk(Class<?> signal, Class<?> handlerType, Method handle, Method name, Object ignore) {
        static @Nullable Jdk find() {
            try {
                Class<?> signal = Class.forName("sun.misc.Signal");
                Class<?> handlerType = Class.forName("sun.misc.SignalHandler");
                return new Jdk(signal, handlerType, signal.getMethod("handle", signal, handlerType),
                        signal.getMethod("getName"), handlerType.getField("SIG_IGN").get(null));
            } catch (ReflectiveOperationException | RuntimeException e) {
                LOG.log(Level.WARNING, "no sun.misc.Signal: SIGTERM/SIGINT/SIGHUP stay with the JVM: {0}", e.toString());
                return null;
            }
        }

        Object signal(String name) throws ReflectiveOperationException {
            return signal.getConstructor(String.class).newInstance(name);
        }

        /** Installs a handler, {@return the previous one} */
        Object install(Object sig, Object handler) throws ReflectiveOperationException {
            return handle.invoke(null, sig, handler);
        }

        Object handler() {
            return Proxy.newProxyInstance(handlerType.getClassLoader(), new Class<?>[] {handlerType}, (proxy, m, args) -> {
                if (m.getName().equals("handle") && args != null && args.length == 1) {
                    handleSignal(String.valueOf(name.invoke(args[0])));
                    return null;
                }
                return switch (m.getName()) {
                    case "hashCode" -> System.identityHashCode(proxy);
                    case "equals" -> args != null && proxy == args[0];
                    default -> "ShutdownSignals.handler";
                };
            });
        }
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
        Jdk jdk = JDK;
        if (jdk == null) {
            return;
        }
        Object handler = jdk.handler();
        for (String name : NAMES) {
            try {
                Object sig = jdk.signal(name);
                Object old = jdk.install(sig, handler);
                if (old == jdk.ignore()) {
                    jdk.install(sig, old);
                } else {
                    PREVIOUS.put(name, old);
                }
            } catch (InvocationTargetException e) {
                LOG.log(Level.DEBUG, "SIG{0} stays with the JVM: {1}", name, e.getCause());
            } catch (ReflectiveOperationException | RuntimeException e) {
                LOG.log(Level.DEBUG, "SIG{0} stays with the JVM: {1}", name, e);
            }
        }
    }

    private static void restore() {
        Jdk jdk = JDK;
        if (jdk == null) {
            return;
        }
        for (Map.Entry<String, Object> e : PREVIOUS.entrySet()) {
            try {
                jdk.install(jdk.signal(e.getKey()), e.getValue());
            } catch (ReflectiveOperationException | RuntimeException ex) {
                LOG.log(Level.DEBUG, "cannot restore SIG{0}: {1}", e.getKey(), ex);
            }
        }
        PREVIOUS.clear();
    }

    private static void handleSignal(String name) {
        List<Runnable> sessions;
        synchronized (SESSIONS) {
            sessions = List.copyOf(SESSIONS);
        }
        LOG.log(Level.DEBUG, "SIG{0}: ending {1} session(s)", name, sessions.size());
        for (Runnable close : sessions) {
            Thread.ofPlatform().name("purefuse-SIG" + name).start(close);
        }
    }
}
