package io.github.purefuse.depotfs.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.purefuse.depotfs.store.BundleEntry;
import io.github.purefuse.depotfs.store.DepotException;
import io.github.purefuse.depotfs.store.DepotObject;
import io.github.purefuse.depotfs.store.Hash;
import io.github.purefuse.depotfs.store.WritableDepot;
import io.github.purefuse.depotfs.store.s3.S3Depot;
import io.github.purefuse.depotfs.store.s3.S3Location;
import java.io.ByteArrayInputStream;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The S3 depot against a real S3 server (S3Proxy), without a mount: format, reads, writes, conditional roots. */
class S3DepotIT {

    @TempDir
    static Path tmp;
    static S3ProxyServer server;

    @BeforeAll
    static void start() throws Exception {
        server = S3ProxyServer.start(tmp, "aws-v2-or-v4");
        server.createBucket("depot-unit");
        System.setProperty("aws.accessKeyId", S3ProxyServer.IDENTITY);
        System.setProperty("aws.secretAccessKey", S3ProxyServer.CREDENTIAL);
    }

    @AfterAll
    static void stop() throws Exception {
        server.close();
    }

    @Test
    void writesAndReadsTheLocalFormat() throws Exception {
        S3Location loc = S3Location.parse("s3://depot-unit/a/b");
        byte[] small = "hello\n".getBytes();
        byte[] big = new byte[40 * 1024 * 1024 + 123];
        new Random(1).nextBytes(big);
        try (S3Depot d = S3Depot.openOrCreate(loc, server.options())) {
            WritableDepot.Stored s = d.putObject(Channels.newChannel(new ByteArrayInputStream(small)), null);
            assertTrue(s.created());
            assertEquals(Hash.sha256(small), s.hash());
            assertFalse(d.putObject(Channels.newChannel(new ByteArrayInputStream(small)), null).created(), "deduplicated");
            WritableDepot.Stored b = d.putObject(Channels.newChannel(new ByteArrayInputStream(big)), null);
            assertEquals(Hash.sha256(big), b.hash());
            WritableDepot.Stored bundle = d.putBundle(List.of(BundleEntry.object("small", s.hash(), small.length, 0, false),
                    BundleEntry.object("big", b.hash(), big.length, 0, false)));
            d.setRoot("main", null, bundle.hash());
            assertEquals(bundle.hash(), d.root("main").orElseThrow());
            DepotException conflict = assertThrows(DepotException.class, () -> d.setRoot("main", s.hash(), bundle.hash()));
            assertEquals(DepotException.Reason.CONFLICT, conflict.reason());
        }
        try (S3Depot d = S3Depot.open(loc, server.options())) {
            Hash root = d.roots().get("main");
            var entries = d.bundle(root).entries();
            assertEquals(List.of("big", "small"), entries.stream().map(BundleEntry::name).toList());
            try (DepotObject o = d.open(entries.get(0).requireHash(), big.length)) {
                ByteBuffer buf = ByteBuffer.allocateDirect(1 << 20);
                long off = 17L * 1024 * 1024 - 5;
                assertEquals(1 << 20, o.read(buf, off));
                byte[] got = new byte[1 << 20];
                buf.flip().get(got);
                assertArrayEquals(java.util.Arrays.copyOfRange(big, (int) off, (int) off + (1 << 20)), got);
                buf.clear();
                assertEquals(123, o.read(buf, 40L * 1024 * 1024));
            }
            DepotException corrupt = assertThrows(DepotException.class, () -> d.open(entries.get(1).requireHash(), 7));
            assertEquals(DepotException.Reason.CORRUPT, corrupt.reason());
        }
        DepotException notADepot = assertThrows(DepotException.class,
                () -> S3Depot.open(S3Location.parse("s3://depot-unit/none"), server.options()));
        assertEquals(DepotException.Reason.NOT_A_DEPOT, notADepot.reason());
    }
}
