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
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A C program with a signal handler installed with {@code SA_RESTART} (git's progress ticker, SIGALRM every
 * second; any interval timer) expects {@code open(2)} of a regular file never to fail with EINTR: on a local
 * file system the kernel restarts the call after the handler. On an S3 depot an OPEN that waits for its first
 * GET is answered EINTR on FUSE_INTERRUPT, and the kernel hands that EINTR to the caller as is (only
 * -ERESTARTSYS is restarted), so the program sees EINTR: {@code git status} on a terminal lists files as
 * modified that are not, {@code git fsck --progress} calls objects corrupt. The process here opens files
 * through libc (ctypes: no PEP 475 retry) with a SA_RESTART handler, as such a C program does.
 */
class S3RestartableSignalIT {
    private static final String BUCKET = "depotfs-sarestart";
    private static final int FILES = 30;

    private static final String SCRIPT = """
            import ctypes, errno, os, signal, sys
            libc = ctypes.CDLL(None, use_errno=True)
            signal.signal(signal.SIGALRM, lambda *a: None)
            signal.siginterrupt(signal.SIGALRM, False)          # SA_RESTART, as C programs install handlers
            signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGALRM})
            names = sorted(os.listdir(sys.argv[1]))
            signal.setitimer(signal.ITIMER_REAL, 0.005, 0.005)
            errors = {}
            for name in names:
                fd = libc.open(os.path.join(sys.argv[1], name).encode(), os.O_RDONLY)
                if fd < 0:
                    e = errno.errorcode.get(ctypes.get_errno(), '?')
                    errors[e] = errors.get(e, 0) + 1
                else:
                    os.close(fd)
            signal.setitimer(signal.ITIMER_REAL, 0)
            print('opens=%d errors=%s' % (len(names), errors))
            """;

    @TempDir
    Path tmp;

    @Test
    void openUnderASaRestartTimerNeverFailsWithEintr() throws Exception {
        Path src = Files.createDirectories(tmp.resolve("src"));
        Random rnd = new Random(7);
        for (int i = 0; i < FILES; i++) {
            byte[] data = new byte[200_000];
            rnd.nextBytes(data);
            Files.write(src.resolve(String.format("f%02d.bin", i)), data);
        }
        Path script = tmp.resolve("opens.py");
        Files.writeString(script, SCRIPT, StandardCharsets.UTF_8);
        try (S3ProxyServer server = S3ProxyServer.signed(Files.createDirectories(tmp.resolve("s3")), BUCKET)) {
            S3Location location = S3Location.parse("s3://" + BUCKET + "/d");
            try (S3Depot s3 = S3Depot.openOrCreate(location, server.options())) {
                ImportResult r = new Importer(s3, 2, Progress.NONE, Set.of()).importPath(src);
                s3.setRoot("r", s3.root("r").orElse(null), r.bundle());
            }
            try (FaultProxy link = new FaultProxy(server.endpoint());
                 S3Depot s3 = S3Depot.open(location, S3Options.defaults(link.endpoint()).withRegion("us-east-1"))) {
                PathAdapter handler = DepotFileSystem.open(new VerifyingDepot(s3), "r", 0, 0)
                        .handler(BufferLeases.pooled(), false);
                try (TestMount m = TestMount.mount(handler, TestMount.options().build())) {
                    Tools.ok(tmp, "ls", "-la", m.path().toString());    // the root's manifest is loaded
                    link.limitRate(2_000_000);                          // each open's first GET: ~65 ms
                    String out = Tools.ok(tmp, "python3", script.toString(), m.path().toString()).strip();
                    assertTrue(out.startsWith("opens=" + FILES + " "), out);
                    assertEquals("opens=" + FILES + " errors={}", out,
                            "open(2) by a process whose SIGALRM handler has SA_RESTART failed; on ext4 it never does");
                }
            }
        }
    }
}
