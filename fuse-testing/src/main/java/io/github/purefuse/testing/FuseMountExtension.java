package io.github.purefuse.testing;

import io.github.purefuse.api.ReadOnlyFileSystem;
import io.github.purefuse.channel.FuseSession;
import io.github.purefuse.channel.MountOptions;
import java.nio.file.Path;
import java.util.Objects;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A JUnit 5 extension that mounts a filesystem for your tests and always unmounts it, through
 * {@link TestMount}. Register it on a {@code static} field to mount once for the whole class, or on an
 * instance field to mount a fresh filesystem for each test:
 *
 * {@snippet :
 * class HelloIT {
 *     @RegisterExtension
 *     // HelloPath: the README's getting-started PathFileSystem (examples/, not in an artifact)
 *     static final FuseMountExtension MOUNT = FuseMountExtension.of(() -> PathAdapter.builder(new HelloPath()).build());
 *
 *     @Test
 *     void catShowsTheGreeting() {
 *         Tools.Result cat = Tools.run(MOUNT.path(), Duration.ofSeconds(10), "cat", "hello.txt").ok();
 *         assertEquals("Hello, world!\n", cat.out());
 *     }
 * }
 * }
 *
 * A static extension mounts once for its class and the {@code @Nested} classes inside it, and once for all
 * the classes that share it (a base class's field; concurrently, if JUnit runs them so), and unmounts when
 * the last of them ends.
 *
 * <p>Where FUSE is unavailable the tests are skipped, or fail when the environment has {@code CI=true}
 * (see {@link TestMount}). For the read-only conformance checks, extend {@link ReadOnlyConformanceSuite}
 * with {@link TestMount#mounter(Supplier)}.
 */
public final class FuseMountExtension implements BeforeAllCallback, BeforeEachCallback, AfterEachCallback, AfterAllCallback {
    private final Supplier<? extends ReadOnlyFileSystem> fs;
    private final MountOptions options;
    private @Nullable TestMount mount;
    private boolean perClass;
    /**
     * Class contexts that mounted or joined the class-level mount and have not ended: a {@code @Nested} class
     * runs {@code beforeAll} inside its outer class's, and classes that share a static extension (a base
     * class's field) may run at once. The mount goes when the last of them ends; a second {@code beforeAll}
     * used to mount again over the field and leave the first mount behind.
     */
    private final java.util.Set<String> classes = new java.util.HashSet<>();

    private FuseMountExtension(Supplier<? extends ReadOnlyFileSystem> fs, MountOptions options) {
        this.fs = fs;
        this.options = options;
    }

    /**
     * Mounts with {@link TestMount#options()}.
     *
     * @param fs makes the filesystem, once per mount
     * @return the extension
     */
    public static FuseMountExtension of(Supplier<? extends ReadOnlyFileSystem> fs) {
        return of(fs, TestMount.options().build());
    }

    /**
     * Mounts with the given options (the shutdown hook is turned off: the extension unmounts).
     *
     * @param fs      makes the filesystem, once per mount
     * @param options the mount options
     * @return the extension
     */
    public static FuseMountExtension of(Supplier<? extends ReadOnlyFileSystem> fs, MountOptions options) {
        return new FuseMountExtension(Objects.requireNonNull(fs, "fs"), Objects.requireNonNull(options, "options"));
    }

    /**
     * The current mount.
     *
     * @return the mount
     * @throws IllegalStateException outside a test (before the mount or after the unmount)
     */
    public TestMount mount() {
        TestMount m = mount;
        if (m == null) {
            throw new IllegalStateException("not mounted: use it inside a test, or register the extension with @RegisterExtension");
        }
        return m;
    }

    /** {@return where the filesystem is mounted; see {@link #mount()}} */
    public Path path() {
        return mount().path();
    }

    /** {@return the session serving the mount; see {@link #mount()}} */
    public FuseSession session() {
        return mount().session();
    }

    @Override
    public synchronized void beforeAll(ExtensionContext context) {
        perClass = true;
        if (mount == null) {
            mount = TestMount.mount(fs.get(), options);
        }
        classes.add(context.getUniqueId());
    }

    @Override
    public synchronized void beforeEach(ExtensionContext context) {
        if (mount == null) {
            mount = TestMount.mount(fs.get(), options);
        }
    }

    @Override
    public synchronized void afterEach(ExtensionContext context) {
        if (!perClass) {
            unmount();
        }
    }

    @Override
    public synchronized void afterAll(ExtensionContext context) {
        if (classes.remove(context.getUniqueId()) && classes.isEmpty()) {
            unmount();
        }
    }

    private void unmount() {
        TestMount m = mount;
        mount = null;
        if (m != null) {
            m.close();
        }
    }
}
