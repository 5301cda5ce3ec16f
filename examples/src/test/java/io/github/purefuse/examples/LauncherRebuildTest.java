package io.github.purefuse.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The launchers' build on first use ({@code bin/lib/common.sh}) against a copy of {@code bin/} in a repository
 * of its own, with a {@code mvn} that only counts its runs: a changed source builds once, not at every launch,
 * also when the change leaves the module's jar as it was (Maven then keeps the jar and its old time).
 */
class LauncherRebuildTest {

    @Test
    void aChangeThatLeavesTheJarAsItWasBuildsOnceNotAtEveryLaunch(@TempDir Path tmp) throws Exception {
        Path root = tmp.resolve("repo");
        Files.createDirectories(root.resolve("bin/lib"));
        for (String f : List.of("fuse-example", "lib/common.sh")) {
            Files.copy(Path.of("..", "bin", f), root.resolve("bin").resolve(f));
        }
        Files.writeString(root.resolve("pom.xml"), "<project/>\n");
        Path target = Files.createDirectories(root.resolve("examples/target"));
        Path jar = Files.write(target.resolve("examples-0.1.0.jar"), new byte[0]);
        Files.writeString(target.resolve("runtime.classpath"), "");
        Path mvnRuns = tmp.resolve("mvn-runs");
        Path fakeBin = Files.createDirectories(tmp.resolve("fake-bin"));
        Path mvn = Files.writeString(fakeBin.resolve("mvn"), "#!/bin/sh\necho run >> '" + mvnRuns + "'\n");
        Files.setPosixFilePermissions(mvn, PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.setLastModifiedTime(jar, FileTime.from(Instant.now().minusSeconds(3600)));
        Files.writeString(Files.createDirectories(root.resolve("site/src/main")).resolve("guide.html"), "<p>new</p>\n");

        assertTrue(launch(root, fakeBin).contains("building examples"), "the first launch after the change builds");
        assertFalse(launch(root, fakeBin).contains("building examples"), "the next one does not");
        assertEquals(1, Files.readAllLines(mvnRuns).size());

        Files.writeString(root.resolve("site/src/main/guide.html"), "<p>newer</p>\n");
        Files.setLastModifiedTime(root.resolve("site/src/main/guide.html"), FileTime.from(Instant.now().plusSeconds(5)));
        assertTrue(launch(root, fakeBin).contains("building examples"), "another change builds again");
        assertEquals(2, Files.readAllLines(mvnRuns).size());
    }

    @Test
    void anotherUserWhoCannotReadTheClassPathGetsOneLine(@TempDir Path tmp) throws Exception {
        // The launcher's class path check as another user (nobody): one jar of the class path is root's alone
        Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path root = tmp.resolve("repo");
        Files.createDirectories(root.resolve("bin/lib"));
        Files.copy(Path.of("..", "bin", "lib", "common.sh"), root.resolve("bin/lib/common.sh"));
        Path target = Files.createDirectories(root.resolve("examples/target"));
        Files.write(target.resolve("examples-0.1.0.jar"), new byte[0]);
        Path secret = Files.write(tmp.resolve("secret.jar"), new byte[0]);
        Files.setPosixFilePermissions(secret, PosixFilePermissions.fromString("rw-------"));
        Path open = Files.write(tmp.resolve("open.jar"), new byte[0]);
        for (Path p : List.of(root, root.resolve("bin"), root.resolve("bin/lib"), root.resolve("examples"), target)) {
            Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxr-xr-x"));
        }
        String check = "source '" + root.resolve("bin/lib/common.sh") + "' && purefuse_check_classpath examples";
        Files.writeString(target.resolve("runtime.classpath"), open.toString());
        assertEquals(0, asNobody(check).exitValue(), "every part readable");

        Files.writeString(target.resolve("runtime.classpath"), open + ":" + secret);
        Process p = asNobody(check);
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(1, p.exitValue(), err);
        assertEquals("bash: cannot read " + secret + " as nobody: examples was built by another user; build it as this one"
                + " (PUREFUSE_REBUILD=1 bash ..., with Maven's repository in your home) or make that file readable\n", err);
    }

    private static Process asNobody(String script) throws IOException, InterruptedException {
        Process p = new ProcessBuilder("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "bash", "-c", script)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        return p;
    }

    /** Runs {@code bin/fuse-example -V} (the java it starts fails on the empty jar: only the build matters). */
    private static String launch(Path root, Path fakeBin) throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder(root.resolve("bin/fuse-example").toString(), "-V")
                .redirectOutput(ProcessBuilder.Redirect.DISCARD);
        pb.environment().put("PATH", fakeBin + ":" + System.getenv("PATH"));
        pb.environment().remove("PUREFUSE_REBUILD");
        Process p = pb.start();
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the launcher ended");
        return err;
    }
}
