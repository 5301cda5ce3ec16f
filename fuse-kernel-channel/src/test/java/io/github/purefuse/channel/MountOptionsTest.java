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

    /** The kernel stops async readahead above congestion_threshold; one above max_background is never reached. */
    @Test
    void congestionThresholdFollowsMaxBackgroundUnlessSetAndNeverExceedsIt() {
        assertEquals(64, MountOptions.defaults().maxBackground());
        assertEquals(48, MountOptions.defaults().congestionThreshold());
        assertEquals(3, MountOptions.builder().maxBackground(4).build().congestionThreshold(), "3/4, as the kernel's 12/9");
        assertEquals(1, MountOptions.builder().maxBackground(1).build().congestionThreshold(), "at least 1, not 0 (the kernel's 9)");
        assertEquals(0, MountOptions.builder().maxBackground(0).build().congestionThreshold(), "both the kernel's defaults");
        assertEquals(4, MountOptions.builder().maxBackground(4).congestionThreshold(4).build().congestionThreshold());
        assertEquals(2, MountOptions.builder().congestionThreshold(2).maxBackground(4).build().congestionThreshold(),
                "an explicit threshold stays, whichever order the setters ran in");
        var e = assertThrows(IllegalArgumentException.class,
                () -> MountOptions.builder().maxBackground(4).congestionThreshold(5).build());
        assertTrue(e.getMessage().contains("congestionThreshold 5") && e.getMessage().contains("maxBackground 4"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> MountOptions.builder().maxBackground(0).congestionThreshold(13).build(),
                "0 is the kernel's 12");
        assertThrows(IllegalArgumentException.class, () -> MountOptions.builder().maxBackground(4).congestionThreshold(0).build(),
                "0 is the kernel's 9");
        MountOptions small = MountOptions.builder().maxBackground(8).build();
        assertEquals(small, small.toBuilder().build());
        assertEquals(96, small.toBuilder().maxBackground(128).build().congestionThreshold(),
                "a derived threshold is derived again in toBuilder()");
        assertEquals(5, MountOptions.builder().maxBackground(8).congestionThreshold(5).build().toBuilder().maxBackground(100).build()
                .congestionThreshold(), "an explicit one is kept");
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
