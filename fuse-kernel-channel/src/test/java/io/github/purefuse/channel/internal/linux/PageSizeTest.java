package io.github.purefuse.channel.internal.linux;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * The kernel's page size, the unit of {@code max_pages}, pipe slots and the page cache, is asked of the system
 * (4096 on x86-64; 16 or 64 KiB on some arm64 kernels), not assumed.
 */
class PageSizeTest {

    @Test
    void thePageSizeIsTheOnesGetconfReports() throws Exception {
        Process p = new ProcessBuilder("getconf", "PAGESIZE").redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).strip();
        assertEquals(0, p.waitFor(), out);
        assertEquals(Integer.parseInt(out), Native.PAGE_SIZE);
    }
}
