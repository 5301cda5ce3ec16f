package io.github.purefuse.depotfs.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.purefuse.depotfs.fs.DepotFileSystem;
import io.github.purefuse.depotfs.importer.ImportResult;
import io.github.purefuse.depotfs.importer.Importer;
import io.github.purefuse.depotfs.importer.Progress;
import io.github.purefuse.depotfs.store.VerifyingDepot;
import io.github.purefuse.depotfs.store.s3.S3Depot;
import io.github.purefuse.depotfs.store.s3.S3Location;
import io.github.purefuse.depotfs.store.s3.S3Options;
import io.github.purefuse.kit.buffer.BufferLeases;
import io.github.purefuse.kit.path.PathAdapter;
import io.github.purefuse.testing.TestMount;
import io.github.purefuse.testing.Tools;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A store that answers {@code 500 InternalError} for two seconds (a restart, a load balancer's failover) is a
 * transient fault: README ("Faults") bounds each request by {@code --s3-timeout} (30 s), retries included,
 * so a read that starts during the blip should be answered once the store is back, well within that time,
 * and the reader should not notice. The SDK's standard retry strategy spends its 4 attempts within about
 * 0.7 s of backoff (100 ms base, full jitter) for a 500, so the open fails with EIO after well under a second
 * while 29 s of the request's budget are left.
 */
class S3BriefOutageIT {
    private static final String BUCKET = "depotfs-outage";

    @TempDir
    Path tmp;

    @Test
    void aTwoSecondBurstOf500IsRiddenOutWithinTheRequestTimeout() throws Exception {
        Path src = Files.createDirectories(tmp.resolve("src"));
        Random rnd = new Random(2026);
        for (int i = 0; i < 4; i++) {
            byte[] data = new byte[(i + 1) * 300_000];
            rnd.nextBytes(data);
            Files.write(src.resolve("f" + i + ".bin"), data);
        }
        try (S3ProxyServer server = S3ProxyServer.signed(Files.createDirectories(tmp.resolve("s3")), BUCKET)) {
            S3Location location = S3Location.parse("s3://" + BUCKET + "/d");
            try (S3Depot s3 = S3Depot.openOrCreate(location, server.options())) {
                ImportResult r = new Importer(s3, 2, Progress.NONE, Set.of()).importPath(src);
                s3.setRoot("r", s3.root("r").orElse(null), r.bundle());
            }
            try (FaultProxy link = new FaultProxy(server.endpoint());
                 S3Depot s3 = S3Depot.open(location, S3Options.defaults(link.endpoint()).withRegion("us-east-1"))) {
                VerifyingDepot depot = new VerifyingDepot(s3);
                PathAdapter handler = DepotFileSystem.open(depot, "r", 0, 0).handler(BufferLeases.pooled(), false);
                try (TestMount m = TestMount.mount(handler, TestMount.options().build())) {
                    Tools.ok(tmp, "ls", "-la", m.path().toString());            // the root's manifest is loaded
                    for (int i = 0; i < 4; i++) {
                        String name = "f" + i + ".bin";
                        String want = Tools.ok(tmp, "sha256sum", src.resolve(name).toString()).split(" ")[0];
                        link.failFor(Duration.ofSeconds(2));
                        long t0 = System.nanoTime();
                        Tools.Result r = Tools.run(tmp, "bash", "-c", "set -o pipefail; cat \"$0\" | sha256sum",
                                m.path().resolve(name).toString());
                        long ms = (System.nanoTime() - t0) / 1_000_000;
                        assertEquals(0, r.exit(), name + " read during a 2 s burst of 500s (" + link.failed()
                                + " answered 500 so far) failed after " + ms + " ms, with 30 s of --s3-timeout: " + r.stderr());
                        assertEquals(want, r.out().split(" ")[0], name + " whole");
                        Thread.sleep(2100);                                     // the burst is over
                    }
                    assertTrue(link.failed() > 0, "the proxy answered 500");
                    assertTrue(TestMount.isMounted(m.path()));
                }
            }
        }
    }
}
