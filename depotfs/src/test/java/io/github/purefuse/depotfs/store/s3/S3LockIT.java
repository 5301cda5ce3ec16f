package io.github.purefuse.depotfs.store.s3;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.purefuse.depotfs.it.S3ProxyServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.core.sync.RequestBody;

/**
 * The root-update lock held for a long time (a gc's whole run) against a real S3 server (S3Proxy): the holder
 * rewrites it, so that it never looks stale, and stops trusting it once a rewrite fails.
 */
class S3LockIT {
    @TempDir
    static Path tmp;
    static S3ProxyServer server;

    @BeforeAll
    static void start() throws Exception {
        server = S3ProxyServer.signed(tmp, "locks");
    }

    @AfterAll
    static void stop() throws Exception {
        server.close();
    }

    /** S3Proxy's filesystem backend gives a file's mtime as LastModified. */
    private static Path lockFile() {
        return tmp.resolve("data/locks/held/lock");
    }

    private static void waitUntil(String what, java.util.function.BooleanSupplier done) throws InterruptedException {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (!done.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, "not within 10 s: " + what);
            Thread.sleep(50);
        }
    }

    @Test
    void aHeldLockIsRewrittenAndAFailedRewriteIsReported() throws Exception {
        try (S3Depot d = S3Depot.openOrCreate(S3Location.parse("s3://locks/held"), server.options())) {
            S3Depot.HeldLock lock = d.lockRootUpdates("gc", Duration.ofMillis(200));
            try {
                assertTrue(Files.readString(lockFile()).endsWith(" gc\n"), "the lock says who holds it");
                Instant old = Instant.now().minusSeconds(120);
                Files.setLastModifiedTime(lockFile(), FileTime.from(old));
                waitUntil("the lock rewritten", () -> {
                    try {
                        return Files.getLastModifiedTime(lockFile()).toInstant().isAfter(old.plusSeconds(60));
                    } catch (IOException e) {
                        return false;
                    }
                });
                lock.check();
                // Another writer took it for stale and wrote its own: the next rewrite's If-Match fails
                try (var admin = server.adminClient()) {
                    admin.putObject(r -> r.bucket("locks").key("held/lock"), RequestBody.fromString("another writer\n"));
                }
                waitUntil("the lost lock noticed", () -> {
                    try {
                        lock.check();
                        return false;
                    } catch (IOException e) {
                        return true;
                    }
                });
                IOException e = assertThrows(IOException.class, lock::check);
                assertTrue(e.getMessage().startsWith("the root-update lock held/lock of s3://locks/held")
                        && e.getMessage().contains("could not be kept (refresh the root-update lock held/lock: precondition"
                        + " failed"), e.getMessage());
                assertEquals("another writer\n", Files.readString(lockFile()), "a lost lock is not written over");
            } finally {
                lock.close();
            }
            assertEquals("another writer\n", Files.readString(lockFile()), "a lost lock is not removed either");
            Files.delete(lockFile());
            S3Depot.HeldLock again = d.lockRootUpdates("root update");
            again.close();
            assertFalse(Files.exists(lockFile()), "a lock released normally is removed");
        }
    }

    /** Starts {@link LockHolderMain} and waits until it holds the lock; its output goes to {@code out}. */
    private static Process holder(Path out, String... args) throws Exception {
        java.util.List<String> cmd = new java.util.ArrayList<>(java.util.List.of(
                ProcessHandle.current().info().command().orElse("java"), "-cp", System.getProperty("java.class.path"),
                LockHolderMain.class.getName(), server.endpoint().toString()));
        cmd.addAll(java.util.List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(out.toFile());
        pb.environment().putAll(S3ProxyServer.credentialsEnvironment());
        Process p = pb.start();
        try {
            waitUntil("the holder locked", () -> {
                try {
                    return Files.exists(out) && Files.readString(out).contains("locked\n");
                } catch (IOException e) {
                    return false;
                }
            });
        } catch (AssertionError | RuntimeException e) {
            p.destroyForcibly();
            throw e;
        }
        return p;
    }

    private static void signal(Process p, String name) throws Exception {
        assertEquals(0, new ProcessBuilder("kill", "-" + name, Long.toString(p.pid())).start().waitFor());
    }

    @Test
    void aHolderStoppedLongerThanTheLockLivesLeavesTheLockItsSuccessorTook() throws Exception {
        Path out = tmp.resolve("holder-stopped.out");
        Path lock = tmp.resolve("data/locks/stopped/lock");
        Process p = holder(out, "s3://locks/stopped", "release", "200");
        try (S3Depot other = S3Depot.open(S3Location.parse("s3://locks/stopped"), server.options())) {
            signal(p, "STOP"); // Ctrl-Z, a frozen VM: its lock is no longer rewritten...
            Thread.sleep(1000); // (five of its rewrite intervals)
            Files.setLastModifiedTime(lock, FileTime.from(Instant.now().minusSeconds(120))); // ...and goes stale
            S3Depot.HeldLock successor = other.lockRootUpdates("root update"); // takes it for stale
            try {
                String theirs = Files.readString(lock);
                assertTrue(theirs.endsWith(" root update\n"), theirs);
                signal(p, "TERM"); // `kill %1` of a stopped job: TERM, then CONT
                signal(p, "CONT");
                assertTrue(p.waitFor(30, java.util.concurrent.TimeUnit.SECONDS), "the holder did not end on SIGTERM");
                assertEquals(theirs, Files.readString(lock), "the stopped holder leaves its successor's lock alone: "
                        + Files.readString(out));
                successor.check();
            } finally {
                successor.close();
            }
            assertFalse(Files.exists(lock), "the successor releases it");
        } finally {
            p.destroyForcibly();
            p.waitFor(30, java.util.concurrent.TimeUnit.SECONDS);
        }
    }

    @Test
    void aHolderStoppedBySigtermRemovesTheLockUnlessItBeganToRemove() throws Exception {
        for (String mode : new String[] {"release", "keep"}) {
            Path out = tmp.resolve("holder-" + mode + ".out");
            Path lock = tmp.resolve("data/locks/exit-" + mode + "/lock");
            Process p = holder(out, "s3://locks/exit-" + mode, mode);
            try {
                assertTrue(Files.exists(lock));
                p.destroy(); // SIGTERM, as a user's kill or a service stop sends
                assertTrue(p.waitFor(30, java.util.concurrent.TimeUnit.SECONDS), "the holder did not end on SIGTERM");
                String said = Files.readString(out);
                if (mode.equals("release")) {
                    assertFalse(Files.exists(lock), "the next writer need not wait for it to go stale: " + said);
                } else {
                    assertTrue(Files.exists(lock), "a gc that began to remove leaves it to go stale: " + said);
                    assertTrue(said.contains("it is left, and taken for stale by the next writer after 60 s"), said);
                }
            } finally {
                p.destroyForcibly();
                p.waitFor(30, java.util.concurrent.TimeUnit.SECONDS);
            }
        }
    }
}
