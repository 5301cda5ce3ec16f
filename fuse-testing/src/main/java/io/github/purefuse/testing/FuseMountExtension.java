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
 * Where FUSE is unavailable the tests are skipped, or fail when the environment has {@code CI=true}
 * (see {@link TestMount}). For the read-only conformance checks, extend {@link ReadOnlyConformanceSuite}
 * with {@link TestMount#mounter(Supplier)}.
 */
public final class FuseMountExtension implements BeforeAllCallback, BeforeEachCallback, AfterEachCallback, AfterAllCallback {
    private final Supplier<? extends ReadOnlyFileSystem> fs;
    private final MountOptions options;
    private @Nullable TestMount mount;
    private boolean perClass;

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
    public void beforeAll(ExtensionContext context) {
        perClass = true;
        mount = TestMount.mount(fs.get(), options);
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        if (mount == null) {
            mount = TestMount.mount(fs.get(), options);
        }
    }

    @Override
    public void afterEach(ExtensionContext context) {
        if (!perClass) {
            unmount();
        }
    }

    @Override
    public void afterAll(ExtensionContext context) {
        unmount();
    }

    private void unmount() {
        TestMount m = mount;
        mount = null;
        if (m != null) {
            m.close();
        }
    }
}
