package io.github.purefuse.channel.internal.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.github.purefuse.api.types.Opcode;
import io.github.purefuse.channel.internal.codec.ReplyEncoder;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;

/** How failed replies are logged. */
class ReplyContextTest {

    /**
     * The first failed reply of an opcode is a WARNING, later ones DEBUG lines: a trial's use-after-release lease,
     * answered EIO after an oversized READ had been, left no line at all.
     */
    @Test
    void laterFailuresOfAnOpcodeStillLeaveADebugLine() {
        List<String> lines = new CopyOnWriteArrayList<>();
        Logger log = Logger.getLogger(ReplyContext.class.getName());
        Level before = log.getLevel();
        Handler capture = new Handler() {
            @Override
            public void publish(LogRecord r) {
                lines.add(r.getLevel() + " " + r.getMessage());
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        log.addHandler(capture);
        log.setLevel(Level.ALL);
        try {
            ReplyContext c = new ReplyContext(new ReplyEncoder(45), new Counters(), (n, k) -> { });
            int read = Opcode.FUSE_READ.code();
            c.logFailure(read, "the reply is larger than asked for");
            c.logFailure(read, "the lease was released");
            assertEquals(List.of("WARNING reply to FUSE_READ failed: the reply is larger than asked for (further failures for"
                    + " this opcode are logged at DEBUG)", "FINE reply to FUSE_READ failed: the lease was released"), lines);
        } finally {
            log.removeHandler(capture);
            log.setLevel(before);
        }
    }
}
