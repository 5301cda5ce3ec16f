package io.github.purefuse.api.types;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class StatfsInfoTest {

    @Test
    void readOnlyRoundsUpToWholeBlocks() {
        assertEquals(0, StatfsInfo.readOnly(0, 1).blocks());
        assertEquals(1, StatfsInfo.readOnly(1, 1).blocks());
        assertEquals(1, StatfsInfo.readOnly(4096, 1).blocks());
        assertEquals(2, StatfsInfo.readOnly(4097, 1).blocks());
    }

    /** depotfs totals saturate at Long.MAX_VALUE ({@code depotfs link} of roots into each other); df showed -2^51 blocks. */
    @Test
    void readOnlyOfSaturatedTotalDoesNotWrapNegative() {
        assertEquals(Long.MAX_VALUE / 4096 + 1, StatfsInfo.readOnly(Long.MAX_VALUE, 1).blocks());
        assertEquals(Long.MAX_VALUE / 4096 + 1, StatfsInfo.readOnly(Long.MAX_VALUE - 4000, 1).blocks());
    }
}
