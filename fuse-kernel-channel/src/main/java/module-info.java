/**
 * The kernel channel: mounts a {@link io.github.purefuse.api.ReadOnlyFileSystem} with
 * {@link io.github.purefuse.channel.FuseSession} and speaks the FUSE protocol to {@code /dev/fuse}.
 *
 * <h2>Stability</h2>
 * The exported package {@code io.github.purefuse.channel} is <b>stable API</b> from 0.1.0 on (checked by
 * japicmp against the released 0.1.0). Everything under {@code io.github.purefuse.channel.internal} (the
 * codec, transports, dispatch, the native calls) is not exported and may change in any release.
 *
 * <h2>Runtime</h2>
 * Every native call goes through jnr-ffi (module {@code org.jnrproject.ffi}, an automatic module), which
 * loads native code: run with {@code --enable-native-access=ALL-UNNAMED} on the class path (on JDK 24+ the
 * JVM warns otherwise), and on JDK 23+ with {@code --sun-misc-unsafe-memory-access=allow}, since jffi and
 * Netty use {@code sun.misc.Unsafe}.
 */
@SuppressWarnings({"requires-automatic", "requires-transitive-automatic"})
module io.github.purefuse.channel {
    requires transitive io.github.purefuse.api;
    requires static org.jspecify;
    requires org.jnrproject.ffi;
    requires org.jnrproject.jffi;   // jnr-ffi's native layer, used directly for a few calls
    // jnr-ffi and jffi are automatic modules, which cannot declare what they need: the channel does it for them
    // (ModuleDescriptorTest), so that a modular application's graph and a jlinked runtime have it.
    requires java.logging;
    requires org.objectweb.asm;     // jnr-ffi generates its native-call stubs with ASM
    requires java.management;       // direct memory left, before io_uring's entries are allocated (uring)
    requires jdk.unsupported;       // sun.misc.Signal: SIGTERM/SIGINT/SIGHUP unmount (ShutdownSignals)

    exports io.github.purefuse.channel;
}
