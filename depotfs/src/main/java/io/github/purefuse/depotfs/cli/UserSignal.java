package io.github.purefuse.depotfs.cli;

import java.lang.reflect.Proxy;

/**
 * {@code SIGUSR1} for a running mount: the JVM leaves it at the kernel's default, which ends the process at once,
 * without the unmount that SIGTERM gets, so that a {@code kill -USR1} (what log rotation and many operators' tools
 * send) left a dead mount point behind ("Transport endpoint is not connected"). A mount handles it instead
 * ({@code depotfs mount}: writes its {@code --stats} file now).
 *
 * <p>Through {@code sun.misc.Signal} (module {@code jdk.unsupported}), found by reflection as the channel's own
 * signal handling finds it, so that javac does not warn about an internal API.
 */
final class UserSignal {

    private UserSignal() {
    }

    /**
     * Runs {@code action} on a thread of its own at each SIGUSR1 from now on.
     *
     * @param action what the signal does
     * @return whether the handler is installed (else SIGUSR1 still ends the process; a line says so)
     */
    static boolean onUsr1(Runnable action) {
        try {
            Class<?> signal = Class.forName("sun.misc.Signal");
            Class<?> handlerType = Class.forName("sun.misc.SignalHandler");
            Object handler = Proxy.newProxyInstance(handlerType.getClassLoader(), new Class<?>[] {handlerType},
                    (proxy, m, args) -> switch (m.getName()) {
                        case "handle" -> {
                            Thread.ofPlatform().daemon().name("depotfs-usr1").start(action);
                            yield null;
                        }
                        case "hashCode" -> System.identityHashCode(proxy);
                        case "equals" -> args != null && proxy == args[0];
                        default -> "depotfs SIGUSR1";
                    });
            signal.getMethod("handle", signal, handlerType)
                    .invoke(null, signal.getConstructor(String.class).newInstance("USR1"), handler);
            return true;
        } catch (ReflectiveOperationException | RuntimeException e) {
            System.err.println("depotfs: SIGUSR1 cannot be handled here (" + e + "); it ends the server without an unmount");
            return false;
        }
    }
}
