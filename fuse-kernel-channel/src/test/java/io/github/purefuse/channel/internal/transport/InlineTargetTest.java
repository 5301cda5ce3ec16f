package io.github.purefuse.channel.internal.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.github.purefuse.api.reply.Data;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** What a READ answered into the transport's buffer sends, however the handler left the buffer. */
class InlineTargetTest {
    private final InlineTarget target = InlineTarget.of(ByteBuffer.allocateDirect(4096));

    private static String sent(Data d) {
        ByteBuffer b = d.lease().bytes().duplicate();
        byte[] out = new byte[b.remaining()];
        b.get(out);
        return new String(out, StandardCharsets.US_ASCII);
    }

    @Test
    void filledSendsTheBytesBeforeThePosition() {
        target.begin(100).buffer().put("hello".getBytes(StandardCharsets.US_ASCII));
        assertEquals("hello", sent(target.filled()));
    }

    @Test
    void filledWithALengthSendsThatManyWhateverThePosition() {
        ByteBuffer b = target.begin(100).buffer();
        b.put("hello".getBytes(StandardCharsets.US_ASCII)).flip(); // flipped: position 0
        Data d = target.filled(5);
        assertEquals("hello", sent(d));
        assertSame(d, target.filled(), "the same reply object: no allocation");
        target.begin(100).buffer().put(0, "abc".getBytes(StandardCharsets.US_ASCII)); // absolute puts
        assertEquals("abc", sent(target.filled(3)));
        assertEquals("", sent(target.filled(0)));
    }

    @Test
    void filledWithALengthBeyondTheReadIsRefused() {
        target.begin(100);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> target.filled(101));
        assertEquals("filled(101): a READ of 100 bytes is answered with 0 to 100 bytes", e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> target.filled(-1));
    }
}
