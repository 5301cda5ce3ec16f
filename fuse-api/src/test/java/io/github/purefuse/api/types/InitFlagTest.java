package io.github.purefuse.api.types;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.purefuse.api.Negotiated;
import java.util.EnumSet;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The INIT flags by name: bits as in fuse.h, and what a session negotiated, tested without bit arithmetic. */
class InitFlagTest {

    @Test
    void bitsAndNamesAreThoseOfFuseH() {
        assertEquals(0, InitFlag.ASYNC_READ.bit());
        assertEquals(30, InitFlag.INIT_EXT.bit());
        assertEquals(37, InitFlag.PASSTHROUGH.bit());
        assertEquals(41, InitFlag.OVER_IO_URING.bit());
        assertEquals(1L << 41, InitFlag.OVER_IO_URING.mask());
        assertEquals("FUSE_OVER_IO_URING", InitFlag.OVER_IO_URING.cName());
        for (InitFlag f : InitFlag.values()) {
            assertEquals(Optional.of(f), InitFlag.ofBit(f.bit()), f.cName());
        }
        assertEquals(Optional.empty(), InitFlag.ofBit(63));
        assertThrows(IllegalArgumentException.class, () -> InitFlag.ofBit(64));
    }

    @Test
    void ofListsTheNamedBitsOfAMask() {
        long mask = InitFlag.ASYNC_READ.mask() | InitFlag.MAX_PAGES.mask() | 1L << 60;
        assertEquals(EnumSet.of(InitFlag.ASYNC_READ, InitFlag.MAX_PAGES), InitFlag.of(mask));
    }

    @Test
    void negotiatedSaysWhatWasOfferedAndWhatAccepted() {
        long offered = InitFlag.PASSTHROUGH.mask() | InitFlag.OVER_IO_URING.mask() | InitFlag.ASYNC_READ.mask();
        long accepted = InitFlag.ASYNC_READ.mask() | InitFlag.PASSTHROUGH.mask();
        Negotiated n = new Negotiated(7, 45, 45, offered, accepted, 131072, 131072, 256, 64, 48, 1);
        assertTrue(n.has(InitFlag.PASSTHROUGH));
        assertFalse(n.has(InitFlag.OVER_IO_URING));
        assertTrue(n.offered(InitFlag.OVER_IO_URING));
        assertEquals(n.has(InitFlag.ASYNC_READ.bit()), n.has(InitFlag.ASYNC_READ));
    }
}
