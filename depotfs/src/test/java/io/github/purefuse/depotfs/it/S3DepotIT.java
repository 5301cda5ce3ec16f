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
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.ArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import io.github.purefuse.depotfs.tree.DepotPath;
import io.github.purefuse.depotfs.tree.DepotTree;
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
        server = S3ProxyServer.signed(tmp, "depot-unit");
    }

    @AfterAll
    static void stop() throws Exception {
        server.close();
    }

    @Test
    void concurrentLinksNeverLoseOne() throws Exception {
        S3Location loc = S3Location.parse("s3://depot-unit/links");
        try (S3Depot d = S3Depot.openOrCreate(loc, server.options())) {
            WritableDepot.Stored leaf = d.putObject(Channels.newChannel(new ByteArrayInputStream("x".getBytes())), null);
            WritableDepot.Stored a = d.putBundle(List.of(BundleEntry.object("x", leaf.hash(), 1, 0, false)));
            WritableDepot.Stored top = d.putBundle(List.of(BundleEntry.bundle("a", a.hash(), a.size(), 0)));
            d.setRoot("r", null, top.hash());
        }
        // The server itself refuses a root write whose If-Match names a stale ETag.
        try (var admin = server.adminClient()) {
            var e = assertThrows(software.amazon.awssdk.services.s3.model.S3Exception.class, () -> admin.putObject(
                    b -> b.bucket("depot-unit").key("links/refs/r").ifMatch("\"0123456789abcdef0123456789abcdef\""),
                    software.amazon.awssdk.core.sync.RequestBody.fromString("junk\n")));
            assertEquals(412, e.statusCode());
        }
        int writers = 4;
        ExecutorService pool = Executors.newFixedThreadPool(writers);
        List<Future<Integer>> results = new ArrayList<>();
        for (int i = 0; i < writers; i++) {
            int k = i;
            results.add(pool.submit(() -> {
                // Each writer its own client, as separate processes on separate hosts would be.
                try (S3Depot d = S3Depot.open(loc, server.options())) {
                    for (int attempt = 1; ; attempt++) {
                        try {
                            DepotTree.link(d, DepotPath.parse("r/a"), DepotPath.parse("r/copy-" + k));
                            return attempt;
                        } catch (DepotException e) {
                            if (e.reason() != DepotException.Reason.CONFLICT || attempt == 50) {
                                throw e;
                            }
                        }
                    }
                }
            }));
        }
        int conflicts = 0;
        for (Future<Integer> f : results) {
            conflicts += f.get(5, TimeUnit.MINUTES) - 1;
        }
        pool.shutdown();
        try (S3Depot d = S3Depot.open(loc, server.options())) {
            List<String> names = d.bundle(d.root("r").orElseThrow()).entries().stream().map(BundleEntry::name).toList();
            assertEquals(List.of("a", "copy-0", "copy-1", "copy-2", "copy-3"), names,
                    "every link is in the root (" + conflicts + " conflicts were retried)");
        }
    }

    /**
     * A depot with many roots lists them all, reading a bounded number of refs at once (a tester's 1,084 roots,
     * read all at once, overran the client's queue and could not be listed or mounted).
     */
    @Test
    void manyRootsAreListedWithABoundedNumberOfReadsAtOnce() throws Exception {
        S3Location loc = S3Location.parse("s3://depot-unit/many-roots");
        int n = 200;
        try (S3Depot d = S3Depot.openOrCreate(loc, server.options())) {
            Hash empty = d.putBundle(List.of()).hash();
            for (int i = 0; i < n; i++) {
                d.setRoot(String.format(java.util.Locale.ROOT, "root%03d", i), null, empty);
            }
        }
        try (FaultProxy counting = new FaultProxy(server.endpoint());
             S3Depot d = S3Depot.open(loc, io.github.purefuse.depotfs.store.s3.S3Options.defaults(counting.endpoint())
                     .withRegion("us-east-1"))) {
            int before = counting.passed();
            var roots = d.roots();
            assertEquals(n, roots.size());
            assertEquals("root000", roots.firstKey());
            assertEquals("root199", roots.lastKey());
            assertTrue(counting.passed() - before <= S3Depot.REF_READS + 1 && S3Depot.REF_READS <= 16,
                    "connections for one LIST and " + n + " GETs: " + (counting.passed() - before));
        }
    }

    @Test
    void aCompleteThatTheServerAnswersSlowlyIsWaitedForNotSentAgain() throws Exception {
        // An S3 trial: S3Mock took over 10 s to answer the Complete of a 1 GiB upload; the SDK cut the attempt at
        // the 10 s attempt timeout and sent it again, and the import failed ("no answer within 30 s").
        S3Location loc = S3Location.parse("s3://depot-unit/slow-complete");
        try (S3Depot d = S3Depot.openOrCreate(loc, server.options())) {
            d.putBundle(List.of()); // the depot exists
        }
        byte[] big = new byte[20 << 20]; // above the multipart threshold
        new Random(11).nextBytes(big);
        try (FaultProxy slow = new FaultProxy(server.endpoint())) {
            slow.delayCompletes(java.time.Duration.ofSeconds(12));
            try (S3Depot d = S3Depot.open(loc, io.github.purefuse.depotfs.store.s3.S3Options.defaults(slow.endpoint())
                    .withRegion("us-east-1"))) {
                WritableDepot.Stored s = d.putObject(Channels.newChannel(new ByteArrayInputStream(big)), null);
                assertEquals(Hash.sha256(big), s.hash());
                assertEquals(1, slow.completes(), "one CompleteMultipartUpload");
                try (DepotObject obj = d.open(s.hash(), big.length)) {
                    ByteBuffer b = ByteBuffer.allocate(4096);
                    obj.read(b, big.length - 4096);
                    assertArrayEquals(Arrays.copyOfRange(big, big.length - 4096, big.length), b.array());
                }
            }
        }
    }

    /**
     * An empty ref, or one far longer than a hash, is a broken root beside the others (refs are read with one
     * ranged GET of 4 KiB, which S3 answers 416 for an empty object: a retrial saw one empty ref stop every
     * command of the depot).
     */
    @Test
    void anEmptyOrHugeRefIsABrokenRootBesideTheOthers() throws Exception {
        S3Location loc = S3Location.parse("s3://depot-unit/odd-refs");
        try (S3Depot d = S3Depot.openOrCreate(loc, server.options())) {
            Hash empty = d.putBundle(List.of()).hash();
            d.setRoot("good", null, empty);
            try (var admin = server.adminClient()) {
                admin.putObject(r -> r.bucket("depot-unit").key("odd-refs/refs/empty"),
                        software.amazon.awssdk.core.sync.RequestBody.empty());
                admin.putObject(r -> r.bucket("depot-unit").key("odd-refs/refs/huge"),
                        software.amazon.awssdk.core.sync.RequestBody.fromBytes(new byte[1 << 20]));
            }
            assertEquals(java.util.Set.of("good"), d.roots().keySet());
            var broken = d.brokenRoots();
            assertEquals(java.util.Set.of("empty", "huge"), broken.keySet());
            assertTrue(broken.get("empty").contains("does not hold a hash"), broken.toString());
            var e = assertThrows(io.github.purefuse.depotfs.store.DepotException.class, () -> d.root("empty"));
            assertTrue(e.getMessage().contains("does not hold a hash"), e.getMessage());
            assertTrue(assertThrows(io.github.purefuse.depotfs.store.DepotException.class, () -> d.root("huge"))
                    .getMessage().contains("does not hold a hash"));
        }
    }

    /**
     * A root-update lock left by a writer that died is removed after a minute, and the writer that removes it
     * says so (a tester's import waited 62 s without a word).
     */
    @Test
    void aStaleRootUpdateLockIsRemovedWithALogLine() throws Exception {
        S3Location loc = S3Location.parse("s3://depot-unit/stale-lock");
        try (S3Depot d = S3Depot.openOrCreate(loc, server.options())) {
            Hash empty = d.putBundle(List.of()).hash();
            try (var admin = server.adminClient()) {
                admin.putObject(r -> r.bucket("depot-unit").key("stale-lock/lock"),
                        software.amazon.awssdk.core.sync.RequestBody.fromString("dead writer\n"));
            }
            // S3Proxy's filesystem backend gives the file's mtime as LastModified: the lock was taken 2 minutes ago
            java.nio.file.Files.setLastModifiedTime(tmp.resolve("data/depot-unit/stale-lock/lock"),
                    java.nio.file.attribute.FileTime.from(java.time.Instant.now().minusSeconds(120)));
            List<String> lines = io.github.purefuse.depotfs.LogLines.during(S3Depot.class, () -> d.setRoot("main", null, empty));
            assertEquals(empty, d.root("main").orElseThrow());
            assertEquals(1, lines.size(), lines.toString());
            assertTrue(lines.get(0).startsWith("WARNING removed the root-update lock stale-lock/lock of s3://depot-unit/stale-lock")
                    && lines.get(0).endsWith("by a writer that did not release it within 60 s"), lines.get(0));
        }
    }

    /**
     * A manifest key that holds more (or fewer) bytes than its parent's entry says: refused as damaged, the larger
     * one after a ranged GET of the entry's size + 1 bytes rather than the whole object (a fuzz trial grew local
     * manifests to 2 GiB and every listing read them whole; S3 fetched them whole too), while the size-free
     * {@code bundle(hash)} of a root still reads it.
     */
    @Test
    void aManifestOfAnotherSizeThanItsEntrySaysIsRefused() throws Exception {
        S3Location loc = S3Location.parse("s3://depot-unit/oversized");
        Hash sub;
        long size;
        byte[] stored;
        try (S3Depot d = S3Depot.openOrCreate(loc, server.options())) {
            WritableDepot.Stored leaf = d.putObject(Channels.newChannel(new ByteArrayInputStream("x".getBytes())), null);
            WritableDepot.Stored s = d.putBundle(List.of(io.github.purefuse.depotfs.store.BundleEntry.object("f",
                    leaf.hash(), 1, 0, false)));
            sub = s.hash();
            size = s.size();
        }
        try (var admin = server.adminClient()) {
            String key = loc.objectKey(sub);
            stored = admin.getObjectAsBytes(r -> r.bucket("depot-unit").key(key)).asByteArray();
            byte[] grown = java.util.Arrays.copyOf(stored, 4 << 20);   // damage that grew it to 4 MiB
            admin.putObject(r -> r.bucket("depot-unit").key(key), software.amazon.awssdk.core.sync.RequestBody.fromBytes(grown));
        }
        try (S3Depot d = S3Depot.open(loc, server.options())) {   // nothing in memory
            DepotException e = assertThrows(DepotException.class, () -> d.bundle(sub, size));
            assertEquals(DepotException.Reason.CORRUPT, e.reason(), e.getMessage());
            assertTrue(e.getMessage().contains("holds more than " + size + " bytes, its entry says " + size), e.getMessage());
        }
        try (var admin = server.adminClient()) {   // and one cut short
            admin.putObject(r -> r.bucket("depot-unit").key(loc.objectKey(sub)),
                    software.amazon.awssdk.core.sync.RequestBody.fromBytes(java.util.Arrays.copyOf(stored, stored.length - 1)));
        }
        try (S3Depot d = S3Depot.open(loc, server.options())) {
            DepotException e = assertThrows(DepotException.class, () -> d.bundle(sub, size));
            assertEquals(DepotException.Reason.CORRUPT, e.reason(), e.getMessage());
        }
    }

    /** Storing the same bytes again repairs an object's damaged chunk checksums, as on a local depot. */
    @Test
    void storingAnObjectAgainRepairsItsDamagedChunkSums() throws Exception {
        S3Location loc = S3Location.parse("s3://depot-unit/repair");
        byte[] bytes = new byte[200_000];
        new Random(9).nextBytes(bytes);
        try (S3Depot d = S3Depot.openOrCreate(loc, server.options())) {
            WritableDepot.Stored o = d.putObject(Channels.newChannel(new ByteArrayInputStream(bytes)), null);
            byte[] good;
            try (var admin = server.adminClient()) {
                String key = loc.chunkSumsKey(o.hash());
                good = admin.getObjectAsBytes(r -> r.bucket("depot-unit").key(key)).asByteArray();
                byte[] bad = good.clone();
                bad[60] ^= 1;                                      // same length: a HEAD would not see it
                admin.putObject(r -> r.bucket("depot-unit").key(key), software.amazon.awssdk.core.sync.RequestBody.fromBytes(bad));
                assertThrows(DepotException.class, () -> d.chunkSums(o.hash(), bytes.length));
                assertFalse(d.putObject(Channels.newChannel(new ByteArrayInputStream(bytes)), null).created());
                assertArrayEquals(good, admin.getObjectAsBytes(r -> r.bucket("depot-unit").key(key)).asByteArray());
            }
            assertTrue(d.chunkSums(o.hash(), bytes.length).isPresent());
        }
    }

    /**
     * A server that ignores {@code Range} answers the first ranged GET of an object with all of it ({@code 200}, no
     * {@code Content-Range}): a complete answer when the object is no longer than the range. An object exactly as
     * long as the first part asked for was refused as "corrupt object: -1 bytes stored" (a fault trial: every file
     * of 128 KiB or less).
     */
    @Test
    void aServerThatIgnoresRangesServesObjectsThatFitTheFirstPart() throws Exception {
        try (Unsigned open = Unsigned.start(tmp.resolve("norange"), "norange")) {
            FaultProxy plain = open.proxy();
            S3Location loc = S3Location.parse("s3://norange/p");
            var options = open.options();
            byte[] bytes = new byte[9815];
            new Random(4).nextBytes(bytes);
            plain.hideRangeHeaders();   // before the first request: a connection's headers are rewritten as it opens
            try (S3Depot d = S3Depot.openOrCreate(loc, options)) {
                WritableDepot.Stored o = d.putObject(Channels.newChannel(new ByteArrayInputStream(bytes)), null);
                try (DepotObject obj = d.open(o.hash(), bytes.length)) {
                    ByteBuffer b = ByteBuffer.allocate(bytes.length);
                    while (b.hasRemaining() && obj.read(b, b.position()) > 0) {
                        // all of it
                    }
                    assertArrayEquals(bytes, b.array());
                }
            }
        }
    }

    /**
     * Ceph radosgw 16.2 compares {@code If-Match} on PUT with its stored ETag without quotes: the quoted ETag it
     * returns (and the SDK hands back) never matches. A root that exists must still move (import again, link),
     * and a stale expected value must still be refused.
     */
    @Test
    void rootMovesOnAServerThatComparesIfMatchWithoutQuotes() throws Exception {
        try (Unsigned open = Unsigned.start(tmp.resolve("radosgw"), "rgw")) {
            FaultProxy rgw = open.proxy();
            rgw.compareIfMatchWithBareEtag();
            S3Location loc = S3Location.parse("s3://rgw/p");
            var options = open.options();
            try (S3Depot d = S3Depot.openOrCreate(loc, options)) {
                WritableDepot.Stored leaf = d.putObject(Channels.newChannel(new ByteArrayInputStream("a\n".getBytes())), null);
                WritableDepot.Stored one = d.putBundle(List.of(BundleEntry.object("f", leaf.hash(), 2, 0, false)));
                WritableDepot.Stored two = d.putBundle(List.of(BundleEntry.object("g", leaf.hash(), 2, 0, false)));
                d.setRoot("main", null, one.hash());
                d.setRoot("main", one.hash(), two.hash()); // radosgw 16.2: "root 'main' changed meanwhile; try again"
                assertEquals(two.hash(), d.root("main").orElseThrow());
                DepotException stale = assertThrows(DepotException.class, () -> d.setRoot("main", one.hash(), one.hash()));
                assertEquals(DepotException.Reason.CONFLICT, stale.reason());
                DepotTree.link(d, DepotPath.parse("main/g"), DepotPath.parse("main/h"));
                assertTrue(d.bundle(d.root("main").orElseThrow()).entry("h").isPresent());
            }
        }
    }

    /**
     * An {@code https://} endpoint that is a plain HTTP server: it answers the TLS hello with a 400 and closes, and
     * every attempt said only "socket is closed" (CRT) or five sentences of generic advice (Netty); the message
     * now names the likely cause.
     */
    /**
     * A host that reaches its store only through an HTTP proxy: the requests go through it (tinyproxy, whose log
     * names each request), named by {@code HTTPS_PROXY} in the environment as curl reads it (the other variables and
     * the JVM's properties: {@code ProxySettingTest}).
     */
    @Test
    void theRequestsGoThroughTheHttpProxyGiven(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        int port;
        try (var probe = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            port = probe.getLocalPort();
        }
        java.nio.file.Path log = dir.resolve("tinyproxy.log");
        java.nio.file.Path conf = java.nio.file.Files.writeString(dir.resolve("tinyproxy.conf"), "Port " + port
                + "\nListen 127.0.0.1\nAllow 127.0.0.1\nLogFile \"" + log + "\"\nLogLevel Connect\nMaxClients 50\nTimeout 60\n");
        Process proxy = new ProcessBuilder("tinyproxy", "-d", "-c", conf.toString()).redirectErrorStream(true)
                .redirectOutput(dir.resolve("tinyproxy.out").toFile()).start();
        try {
            long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(10);
            while (true) {
                try (var s = new java.net.Socket(java.net.InetAddress.getLoopbackAddress(), port)) {
                    break;
                } catch (java.io.IOException notYet) {
                    assertTrue(proxy.isAlive() && System.nanoTime() < deadline,
                            "tinyproxy: " + java.nio.file.Files.readString(dir.resolve("tinyproxy.out")));
                    Thread.sleep(50);
                }
            }
            // An https endpoint through a plain-HTTP proxy (the usual HTTPS_PROXY=http://proxy:3128): the client must
            // ask the proxy for a tunnel (CONNECT) in plain HTTP; the SDK's own lookup spoke TLS to the proxy, which
            // saw no request at all. The endpoint here answers no TLS, so the command fails after the tunnel.
            ProcessBuilder pb = new ProcessBuilder(ProcessHandle.current().info().command().orElse("java"),
                    "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
                    io.github.purefuse.depotfs.cli.DepotfsCli.class.getName(), "ls", "--depot", "s3://depot-unit/p",
                    "--endpoint", "https://127.0.0.1:" + server.endpoint().getPort(), "--s3-timeout", "5")
                    .redirectErrorStream(true);
            pb.environment().putAll(S3ProxyServer.credentialsEnvironment());
            pb.environment().put("HTTPS_PROXY", "http://127.0.0.1:" + port);
            pb.environment().put("NO_PROXY", "example.invalid");
            Process ls = pb.start();
            String said = new String(ls.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            ls.waitFor();
            String seen = java.nio.file.Files.readString(log);
            assertTrue(seen.contains("CONNECT 127.0.0.1:" + server.endpoint().getPort()), said + "\n" + seen);
        } finally {
            proxy.destroy();
            proxy.waitFor(10, java.util.concurrent.TimeUnit.SECONDS);
        }
    }

    @Test
    void anUntrustedCertificateSaysHowToTrustTheCa(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        java.nio.file.Path ks = dir.resolve("server.p12");
        String keytool = java.nio.file.Path.of(System.getProperty("java.home"), "bin", "keytool").toString();
        Process p = new ProcessBuilder(keytool, "-genkeypair", "-keyalg", "RSA", "-alias", "s", "-dname", "CN=localhost",
                "-ext", "SAN=IP:127.0.0.1", "-keystore", ks.toString(), "-storetype", "PKCS12", "-storepass", "changeit",
                "-validity", "2").redirectErrorStream(true).start();
        p.getInputStream().readAllBytes();
        assertEquals(0, p.waitFor());
        var store = java.security.KeyStore.getInstance("PKCS12");
        try (var in = java.nio.file.Files.newInputStream(ks)) {
            store.load(in, "changeit".toCharArray());
        }
        var kmf = javax.net.ssl.KeyManagerFactory.getInstance(javax.net.ssl.KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(store, "changeit".toCharArray());
        var ctx = javax.net.ssl.SSLContext.getInstance("TLS");
        ctx.init(kmf.getKeyManagers(), null, null);
        try (var tls = ctx.getServerSocketFactory().createServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress())) {
            Thread answering = Thread.ofVirtual().start(() -> {
                while (!tls.isClosed()) {
                    try {
                        java.net.Socket c = tls.accept();
                        Thread.ofVirtual().start(() -> {
                            try (c) {
                                c.setSoTimeout(2000);
                                ((javax.net.ssl.SSLSocket) c).startHandshake();   // the client refuses the certificate
                            } catch (java.io.IOException refused) {
                                // the client went
                            }
                        });
                    } catch (java.io.IOException closed) {
                        // the test ended
                    }
                }
            });
            java.net.URI endpoint = java.net.URI.create("https://127.0.0.1:" + tls.getLocalPort());
            for (var client : io.github.purefuse.depotfs.store.s3.S3Options.HttpClientKind.values()) {
                var options = io.github.purefuse.depotfs.store.s3.S3Options.defaults(endpoint).withRegion("us-east-1")
                        .withAnonymous(true).withHttpClient(client)
                        .withTimeouts(java.time.Duration.ofSeconds(3), java.time.Duration.ofSeconds(8), 2);
                java.io.IOException e = assertThrows(java.io.IOException.class,
                        () -> S3Depot.open(S3Location.parse("s3://bkt/p"), options));
                assertTrue(e.getMessage().contains("to trust your own CA's certificate: AWS_CA_BUNDLE=CA.pem"), client + ": " + e.getMessage());
            }
            tls.close();
            answering.join(java.time.Duration.ofSeconds(10));
        }
    }

    /**
     * An https S3 server whose certificate a private CA signed (here: self-signed), trusted as the AWS CLI trusts it:
     * through {@code AWS_CA_BUNDLE}, or {@code ca_bundle} in the profile of {@code AWS_CONFIG_FILE}. Both work with
     * the default client (NETTY then, as CRT cannot take them); without either the certificate is refused and the
     * message says how to trust it; a bundle that is not there is named.
     */
    @Test
    void aPrivateCaIsTrustedThroughAwsCaBundleOrTheProfilesCaBundle(@TempDir Path dir) throws Exception {
        Path ks = dir.resolve("server.p12");
        String keytool = Path.of(System.getProperty("java.home"), "bin", "keytool").toString();
        for (String[] cmd : new String[][] {
                {keytool, "-genkeypair", "-keyalg", "RSA", "-alias", "s", "-dname", "CN=s3-test", "-ext",
                        "SAN=IP:127.0.0.1", "-keystore", ks.toString(), "-storetype", "PKCS12", "-storepass", "changeit",
                        "-validity", "2"},
                {keytool, "-exportcert", "-rfc", "-alias", "s", "-keystore", ks.toString(), "-storepass", "changeit",
                        "-file", dir.resolve("ca.pem").toString()}}) {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            String said = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            assertEquals(0, p.waitFor(), said);
        }
        Path src = java.nio.file.Files.createDirectories(dir.resolve("src"));
        java.nio.file.Files.writeString(src.resolve("hello.txt"), "over TLS\n");
        Path noConfig = dir.resolve("no-aws-config");
        Path config = java.nio.file.Files.writeString(dir.resolve("aws-config"),
                "[default]\nca_bundle = " + dir.resolve("ca.pem") + "\n");
        try (S3ProxyServer tls = S3ProxyServer.signedTls(dir.resolve("s3"), "tls-bkt", ks)) {
            String[] address = {"--depot", "s3://tls-bkt/p", "--endpoint", tls.httpsEndpoint().toString(), "--s3-timeout", "20"};
            String[] imported = cli(java.util.Map.of("AWS_CA_BUNDLE", dir.resolve("ca.pem").toString(),
                    "AWS_CONFIG_FILE", noConfig.toString()), concat(new String[] {"import", src.toString(), "--root", "r",
                    "--quiet"}, address));
            assertEquals("0", imported[0], imported[1]);
            String[] listed = cli(java.util.Map.of("AWS_CONFIG_FILE", config.toString()),
                    concat(new String[] {"ls", "r"}, address));
            assertEquals("0", listed[0], listed[1]);
            assertTrue(listed[1].contains("hello.txt"), listed[1]);
            String[] refused = cli(java.util.Map.of("AWS_CONFIG_FILE", noConfig.toString()),
                    concat(new String[] {"ls", "r", "--s3-http-client", "NETTY"}, address));
            assertEquals("1", refused[0], refused[1]);
            assertTrue(refused[1].contains("to trust your own CA's certificate: AWS_CA_BUNDLE=CA.pem"), refused[1]);
            // The bundle's CA signed it, but for 127.0.0.1 only (its CN names no host): the name is the problem, not the CA
            String[] otherName = cli(java.util.Map.of("AWS_CA_BUNDLE", dir.resolve("ca.pem").toString(),
                    "AWS_CONFIG_FILE", noConfig.toString()), concat(new String[] {"ls", "r", "--depot", "s3://tls-bkt/p",
                    "--endpoint", "https://localhost:" + tls.httpsEndpoint().getPort(), "--s3-timeout", "20"}));
            assertEquals("1", otherName[0], otherName[1]);
            assertTrue(otherName[1].contains("No name matching localhost") && !otherName[1].contains("not signed by a CA"),
                    otherName[1]);
            String[] missing = cli(java.util.Map.of("AWS_CA_BUNDLE", dir.resolve("nope.pem").toString(),
                    "AWS_CONFIG_FILE", noConfig.toString()), concat(new String[] {"ls", "r"}, address));
            assertTrue(missing[1].contains("AWS_CA_BUNDLE " + dir.resolve("nope.pem") + ": cannot read it"), missing[1]);
            assertTrue(!"0".equals(missing[0]), missing[1]);
        }
    }

    /** Runs the depotfs CLI in a child JVM with the test credentials and {@code env}; {@return its exit code and output} */
    private static String[] cli(java.util.Map<String, String> env, String... args) throws Exception {
        java.util.List<String> cmd = new java.util.ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java"),
                "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
                io.github.purefuse.depotfs.cli.DepotfsCli.class.getName()));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().remove("AWS_CA_BUNDLE");
        pb.environment().putAll(S3ProxyServer.credentialsEnvironment());
        pb.environment().putAll(env);
        Process p = pb.start();
        String said = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), said);
        return new String[] {Integer.toString(p.exitValue()), said};
    }

    private static String[] concat(String[] a, String[] b) {
        String[] all = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, all, a.length, b.length);
        return all;
    }

    @Test
    void anHttpsEndpointThatSpeaksPlainHttpIsNamed() throws Exception {
        try (java.net.ServerSocket plain = new java.net.ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress())) {
            Thread answering = Thread.ofVirtual().start(() -> {
                while (!plain.isClosed()) {
                    try (java.net.Socket c = plain.accept()) {
                        c.getInputStream().read(new byte[4096]);
                        c.getOutputStream().write("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                                .getBytes(java.nio.charset.StandardCharsets.US_ASCII));
                    } catch (java.io.IOException closed) {
                        // the test ended, or the client went
                    }
                }
            });
            java.net.URI endpoint = java.net.URI.create("https://127.0.0.1:" + plain.getLocalPort());
            for (var client : io.github.purefuse.depotfs.store.s3.S3Options.HttpClientKind.values()) {
                var options = io.github.purefuse.depotfs.store.s3.S3Options.defaults(endpoint).withRegion("us-east-1")
                        .withAnonymous(true).withHttpClient(client)
                        .withTimeouts(java.time.Duration.ofSeconds(5), java.time.Duration.ofSeconds(20), 2);
                java.io.IOException e = assertThrows(java.io.IOException.class,
                        () -> S3Depot.open(S3Location.parse("s3://bkt/p"), options));
                assertTrue(e.getMessage().contains("closed") && e.getMessage().contains(
                        "; if the server speaks plain HTTP, give --endpoint as http:// (s3://bkt/p at " + endpoint + ")")
                        && !e.getMessage().contains("usually succeed on a retry"), client + ": " + e.getMessage());
            }
            plain.close();
            answering.join(java.time.Duration.ofSeconds(10));
        }
    }

    /**
     * A server that honours {@code If-None-Match: *} but ignores {@code If-Match} would let two writers move a root
     * over each other: its probe now asks both, and a root is not written there.
     */
    @Test
    void aServerThatIgnoresIfMatchIsRefusedAsWithoutConditionalWrites() throws Exception {
        try (Unsigned open = Unsigned.start(tmp.resolve("nomatch"), "half")) {
            FaultProxy half = open.proxy();
            half.hideIfMatch();
            var options = open.options();
            try (S3Depot d = S3Depot.openOrCreate(S3Location.parse("s3://half/p"), options)) {
                WritableDepot.Stored top = d.putBundle(List.of());
                DepotException e = assertThrows(DepotException.class, () -> d.setRoot("main", null, top.hash()));
                assertEquals(DepotException.Reason.INVALID, e.reason());
                assertTrue(e.getMessage().endsWith("does not support conditional writes (If-None-Match/If-Match on PUT),"
                        + " which root updates need"), e.getMessage());
                assertTrue(d.roots().isEmpty(), "no root was written");
            }
        }
    }

    /**
     * An S3Proxy that checks no signatures, with one bucket, behind a {@link FaultProxy} that shapes what the server
     * seems to do; depots reach it anonymously through the proxy.
     */
    private record Unsigned(S3ProxyServer server, FaultProxy proxy) implements AutoCloseable {
        static Unsigned start(java.nio.file.Path dir, String bucket) throws Exception {
            S3ProxyServer server = S3ProxyServer.start(java.nio.file.Files.createDirectories(dir), "none");
            try {
                server.createBucket(bucket);
                return new Unsigned(server, new FaultProxy(server.endpoint()));
            } catch (Exception | Error e) {
                server.close();
                throw e;
            }
        }

        io.github.purefuse.depotfs.store.s3.S3Options options() {
            return io.github.purefuse.depotfs.store.s3.S3Options.defaults(proxy.endpoint()).withRegion("us-east-1")
                    .withAnonymous(true);
        }

        @Override
        public void close() throws Exception {
            try {
                proxy.close();
            } finally {
                server.close();
            }
        }
    }

    @Test
    void anonymousAccessAndAServerWithoutConditionalWrites() throws Exception {
        try (Unsigned open = Unsigned.start(tmp.resolve("open"), "public")) {
            FaultProxy plain = open.proxy();
            plain.hideConditionalHeaders();
            S3Location loc = S3Location.parse("s3://public/p");
            var options = open.options();
            try (S3Depot d = S3Depot.openOrCreate(loc, options)) {
                WritableDepot.Stored leaf = d.putObject(Channels.newChannel(new ByteArrayInputStream("pub\n".getBytes())), null);
                WritableDepot.Stored top = d.putBundle(List.of(BundleEntry.object("f", leaf.hash(), 4, 0, false)));
                DepotException e = assertThrows(DepotException.class, () -> d.setRoot("main", null, top.hash()));
                assertEquals(DepotException.Reason.INVALID, e.reason());
                assertEquals("the S3 server of s3://public/p at " + plain.endpoint() + " does not support conditional writes"
                        + " (If-None-Match/If-Match on PUT), which root updates need", e.getMessage());
                assertTrue(d.roots().isEmpty(), "no root was written");
                try (DepotObject o = d.open(leaf.hash(), 4)) {
                    ByteBuffer b = ByteBuffer.allocate(4);
                    assertEquals(4, o.read(b, 0));
                    assertEquals("pub\n", new String(b.array()));
                }
            }
            // The CLI says it in one line.
            java.nio.file.Path src = java.nio.file.Files.createDirectories(tmp.resolve("src"));
            java.nio.file.Files.writeString(src.resolve("hello.txt"), "hello\n");
            java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
            int rc = io.github.purefuse.depotfs.cli.DepotfsCli.run(new String[] {"import", src.toString(), "--depot",
                    "s3://public/p", "--endpoint", plain.endpoint().toString(), "--anonymous", "--quiet"},
                    new java.io.PrintStream(new java.io.ByteArrayOutputStream()), new java.io.PrintStream(err, true));
            assertEquals(1, rc);
            assertEquals("depotfs: the S3 server of s3://public/p at " + plain.endpoint() + " does not support conditional"
                    + " writes (If-None-Match/If-Match on PUT), which root updates need\n", err.toString());
        }
    }

    @Test
    void aSecondImportFromAnotherProcessStoresNothingNew() throws Exception {
        // Small files are written without a HEAD first (one conditional PUT); the big one is looked for first.
        Path src = java.nio.file.Files.createDirectories(tmp.resolve("reimport"));
        java.nio.file.Files.writeString(src.resolve("a.txt"), "alpha\n");
        java.nio.file.Files.writeString(src.resolve("b.txt"), "beta\n");
        java.nio.file.Files.writeString(src.resolve("same.txt"), "alpha\n");
        byte[] big = new byte[3 * 1024 * 1024 + 7];
        new Random(7).nextBytes(big);
        java.nio.file.Files.write(src.resolve("big.bin"), big);
        S3Location loc = S3Location.parse("s3://depot-unit/reimport");
        io.github.purefuse.depotfs.importer.ImportResult first;
        try (S3Depot d = S3Depot.openOrCreate(loc, server.options())) {
            first = new io.github.purefuse.depotfs.importer.Importer(d, 4,
                    io.github.purefuse.depotfs.importer.Progress.NONE, java.util.Set.of()).importPath(src);
            assertEquals(3, first.newObjects(), "alpha, beta and the big one");
            assertEquals(1, first.dedupedFiles(), "the second copy of alpha");
        }
        try (S3Depot d = S3Depot.open(loc, server.options())) {   // a new process knows nothing stored
            var second = new io.github.purefuse.depotfs.importer.Importer(d, 4,
                    io.github.purefuse.depotfs.importer.Progress.NONE, java.util.Set.of()).importPath(src);
            assertEquals(first.bundle(), second.bundle());
            assertEquals(0, second.newObjects(), "every object was there");
            assertEquals(4, second.dedupedFiles());
            for (BundleEntry e : d.bundle(second.bundle()).entries()) {
                assertTrue(d.chunkSums(e.requireHash(), e.size()).isPresent(), "checksums of " + e.name());
                try (DepotObject o = d.open(e.requireHash(), e.size())) {
                    ByteBuffer b = ByteBuffer.allocate((int) e.size());
                    while (b.hasRemaining() && o.read(b, b.position()) > 0) {
                        // fill
                    }
                    assertArrayEquals(java.nio.file.Files.readAllBytes(src.resolve(e.name())), b.array(), e.name());
                }
            }
        }
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
            // a second writer that also found no root 'main' (two imports creating it at once) fails, not overwrites
            Hash empty = d.putBundle(List.of()).hash();
            DepotException created = assertThrows(DepotException.class, () -> d.setRoot("main", null, empty));
            assertEquals(DepotException.Reason.CONFLICT, created.reason());
            assertEquals("root 'main' was created meanwhile (now " + bundle.hash().shortHex() + "); try again", created.getMessage());
            assertEquals(bundle.hash(), d.root("main").orElseThrow());
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
        // ls and verify through the CLI, with the SDK's credential chain (system properties here).
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
        String[] common = {"--depot", loc.toString(), "--endpoint", server.endpoint().toString()};
        assertEquals(0, io.github.purefuse.depotfs.cli.DepotfsCli.run(concat(new String[] {"ls"}, common, new String[] {"main"}),
                new java.io.PrintStream(out, true), new java.io.PrintStream(err, true)), err.toString());
        assertTrue(out.toString().contains(" big\n") && out.toString().contains(" small\n"), out.toString());
        out.reset();
        assertEquals(0, io.github.purefuse.depotfs.cli.DepotfsCli.run(concat(new String[] {"verify", "--quiet"}, common),
                new java.io.PrintStream(out, true), new java.io.PrintStream(err, true)), err.toString());
        assertTrue(out.toString().contains("1 manifests and 2 objects") && out.toString().endsWith("all intact\n"), out.toString());
        DepotException notADepot = assertThrows(DepotException.class,
                () -> S3Depot.open(S3Location.parse("s3://depot-unit/none"), server.options()));
        assertEquals(DepotException.Reason.NOT_A_DEPOT, notADepot.reason());
    }

    private static String[] concat(String[]... parts) {
        return java.util.Arrays.stream(parts).flatMap(java.util.Arrays::stream).toArray(String[]::new);
    }
}
