package io.github.purefuse.channel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class MountOptionsTest {
    @Test
    void defaultsSuitAReadOnlyServer() {
        MountOptions o = MountOptions.defaults();
        assertTrue(o.fsname().startsWith("purefuse:") && o.fsname().length() > "purefuse:".length(), o.fsname());
        assertTrue(o.defaultPermissions());
        assertTrue(o.readerThreads() >= 2);
        assertEquals(256, o.maxInFlight());
        assertEquals(MountOptions.kernelMaxPagesLimit(), o.maxPages());
        assertTrue(o.installShutdownHook());
        assertFalse(o.nonempty(), "a non-empty mount point is refused unless asked for");
        assertFalse(o.handleSignals(), "an embedding program keeps the JVM's signal handling unless it asks");
        assertEquals(o, o.toBuilder().build());
    }

    @Test
    void theDefaultFsnameIsPurefuseAndTheProgramsNameNotABareWord() {
        String saved = System.getProperty("sun.java.command");
        try {
            System.setProperty("sun.java.command", "com.example.HelloPath /mnt/hello");
            assertEquals("purefuse:HelloPath", MountOptions.defaultFsname());
            System.setProperty("sun.java.command", "/opt/servers/my,server.jar --flag");
            assertEquals("purefuse:my_server.jar", MountOptions.defaultFsname());
            System.setProperty("sun.java.command", "app.module/com.example.Main");
            assertEquals("purefuse:Main", MountOptions.defaultFsname());
            System.setProperty("sun.java.command", "");
            assertEquals("purefuse:java", MountOptions.defaultFsname());
        } finally {
            if (saved == null) {
                System.clearProperty("sun.java.command");
            } else {
                System.setProperty("sun.java.command", saved);
            }
        }
    }

    @Test
    void theMaxPagesLimitIsReadInOneRead() throws Exception {
        // A sysctl file yields nothing at a non-zero offset; reading it byte by byte would give "2" for 256.
        String raw = new String(java.nio.file.Files.newInputStream(
                java.nio.file.Path.of("/proc/sys/fs/fuse/max_pages_limit")).readNBytes(32)).strip();
        assertEquals(Integer.parseInt(raw), MountOptions.kernelMaxPagesLimit());
    }

    @Test
    void badValuesAreRefusedWithTheirName() {
        var e = assertThrows(IllegalArgumentException.class, () -> MountOptions.builder().fsname("a,b").build());
        assertTrue(e.getMessage().contains("fsname"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> MountOptions.builder().subtype("x y").build());
        assertTrue(e.getMessage().contains("subtype"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> MountOptions.builder().readerThreads(0).build());
        assertTrue(e.getMessage().contains("readerThreads"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> MountOptions.builder().maxPages(70000).build());
        assertTrue(e.getMessage().contains("maxPages"), e.getMessage());
    }

    @Test
    void recordingIsOffByDefaultAndItsBoundsAreChecked() {
        assertEquals(null, MountOptions.defaults().record());
        MountOptions o = MountOptions.builder().record(java.nio.file.Path.of("/tmp/x.fusecap"), 1 << 20, 3).build();
        assertEquals(new MountOptions.Recording(java.nio.file.Path.of("/tmp/x.fusecap"), 1 << 20, 3), o.record());
        assertEquals(o.record(), o.toBuilder().build().record());
        var e = assertThrows(IllegalArgumentException.class,
                () -> MountOptions.builder().record(java.nio.file.Path.of("x"), 1000, 3));
        assertTrue(e.getMessage().contains("maxBytesPerFile"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class,
                () -> MountOptions.builder().record(java.nio.file.Path.of("x"), 1 << 20, 0));
        assertTrue(e.getMessage().contains("keepFiles"), e.getMessage());
    }
}
