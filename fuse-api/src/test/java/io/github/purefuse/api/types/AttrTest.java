package io.github.purefuse.api.types;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class AttrTest {

    @Test
    void blocksDefaultToTheSizeIn512ByteUnitsRoundedUp() {
        assertEquals(0, Attr.builder(FileType.REGULAR).size(0).build().blocks());
        assertEquals(1, Attr.builder(FileType.REGULAR).size(1).build().blocks());
        assertEquals(2, Attr.builder(FileType.REGULAR).size(513).build().blocks());
        // size + 511 would overflow here (a user's "huge file" gave a negative blocks error)
        assertEquals(Long.MAX_VALUE / 512 + 1, Attr.builder(FileType.REGULAR).size(Long.MAX_VALUE).build().blocks());
        assertEquals(7, Attr.builder(FileType.REGULAR).size(Long.MAX_VALUE).blocks(7).build().blocks());
    }

    @Test
    void aNegativeSizeIsNamed() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Attr.builder(FileType.REGULAR).size(-1).build());
        assertEquals("size and blocks must be >= 0: -1, 0", e.getMessage());
    }
}
