package io.github.purefuse.consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.github.purefuse.testing.TestMount;
import io.github.purefuse.testing.Tools;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * purefuse as another team gets it. Step 1 releases the published modules from a copy of this checkout
 * ({@code mvn deploy -Drevision=X.Y.Z -DaltDeploymentRepository=release::file://...}) into a file repository
 * and a throwaway local repository, and checks what is there. Step 2 builds {@code src/it/consumer} (its own
 * pom, no purefuse parent, the BOM imported) with {@code mvn verify} against that local repository, which
 * runs its conformance suite and mount test as its own JUnit tests. Step 3 runs the consumer's
 * {@code main}, which mounts, and looks at the mount with {@code ls}, {@code cat} and {@code stat}.
 *
 * <p>Nothing is downloaded: third-party artifacts come from this build's own local repository, served to the
 * nested builds as a {@code file://} mirror, and copied into the throwaway repository only as needed.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ConsumerProjectIT {
    static final List<String> PUBLISHED = List.of("fuse-api", "fuse-kernel-channel", "fuse-readonly-kit", "fuse-testing");
    static final Duration BUILD = Duration.ofMinutes(10);
    /**
     * The consumer's JVMs serve over /dev/fuse whatever the FUSE module parameter enable_uring says (other
     * tests on this machine set it), so that this test, which is about the artifacts, runs the same way in
     * every run. io_uring has its own tests (UringIT, where AUTO picks it once the kernel offers it; an early version of
     * this note said the REGISTER failed with EFAULT here: that was the ring's iovecs freed by the GC, fixed).
     */
    static final String TRANSPORT = "-Dpurefuse.transport=dev";
    static final String FLAGS = "--enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow";

    final Path root = Path.of(System.getProperty("purefuse.root", "..")).toAbsolutePath().normalize();
    final String version = System.getProperty("purefuse.version", "0.1.0-SNAPSHOT").replace("-SNAPSHOT", "");
    Path work;
    Path localRepo;
    Path release;
    Path settings;
    Path consumer;

    @BeforeAll
    void setUp() throws IOException {
        TestMount.requireDevFuse();
        work = Files.createTempDirectory("purefuse-consumer-");
        localRepo = Files.createDirectory(work.resolve("m2"));
        release = work.resolve("release");
        String outer = System.getProperty("purefuse.outerRepository", System.getProperty("user.home") + "/.m2/repository");
        // A local repository has no checksum files: the mirror is trusted as it is.
        String central = """
                <id>central</id><url>https://repo.maven.apache.org/maven2</url>
                <releases><checksumPolicy>ignore</checksumPolicy></releases>
                <snapshots><enabled>false</enabled></snapshots>""";
        settings = Files.writeString(work.resolve("settings.xml"), """
                <settings>
                  <mirrors>
                    <mirror><id>outer-local</id><mirrorOf>*</mirrorOf><url>%s</url></mirror>
                  </mirrors>
                  <profiles>
                    <profile>
                      <id>lax</id>
                      <repositories><repository>%s</repository></repositories>
                      <pluginRepositories><pluginRepository>%s</pluginRepository></pluginRepositories>
                    </profile>
                  </profiles>
                  <activeProfiles><activeProfile>lax</activeProfile></activeProfiles>
                </settings>
                """.formatted(Path.of(outer).toUri(), central, central));
    }

    @AfterAll
    void cleanUp() throws IOException {
        if (work == null) {
            return;
        }
        try (Stream<Path> s = Files.walk(work)) {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                if (!TestMount.isMounted(p)) {
                    Files.deleteIfExists(p);
                }
            }
        }
    }

    @Test
    @Order(1)
    void deployPublishesJarsSourcesJavadocAndCompletePoms() throws Exception {
        Path src = copyPublishedSources(work.resolve("src"));
        // As README "Releasing" says; the copy holds main sources only. 0.1.0 skips japicmp (profile api-baseline-release).
        maven(src, "-Drevision=" + version, "-DskipTests", "-Dfuzz.skip=true",
                "-DaltDeploymentRepository=release::" + release.toUri(),
                "-pl", ".,bom," + String.join(",", PUBLISHED), "deploy");

        Path group = release.resolve("io/github/purefuse");
        for (String a : PUBLISHED) {
            Path dir = group.resolve(a).resolve(version);
            for (String suffix : List.of(".jar", "-sources.jar", "-javadoc.jar", ".pom")) {
                assertTrue(Files.isRegularFile(dir.resolve(a + "-" + version + suffix)), "deployed " + a + suffix);
            }
            String pom = Files.readString(dir.resolve(a + "-" + version + ".pom"));
            assertFalse(pom.contains("${revision}"), a + ": the deployed pom has a resolved version");
            assertTrue(pom.contains("<description>"), a + ": description");
            assertTrue(pom.contains("<version>" + version + "</version>"), a + ": parent version " + version);
            try (JarFile jar = new JarFile(dir.resolve(a + "-" + version + ".jar").toFile())) {
                // Every library is a named module that exports exactly its packages outside *.internal.* to
                // everyone (an internal one at most to a named module of ours: a qualified export)
                assertNotNull(jar.getEntry("module-info.class"), a + ": a module-info");
                java.lang.module.ModuleDescriptor d;
                try (var in = jar.getInputStream(jar.getEntry("module-info.class"))) {
                    d = java.lang.module.ModuleDescriptor.read(in);
                }
                java.util.Set<String> publicPackages = new java.util.TreeSet<>();
                jar.stream().map(e -> e.getName()).filter(n -> n.endsWith(".class") && n.contains("/"))
                        .map(n -> n.substring(0, n.lastIndexOf('/')).replace('/', '.'))
                        .filter(pkg -> !pkg.contains(".internal")).forEach(publicPackages::add);
                java.util.Set<String> exported = new java.util.TreeSet<>();
                d.exports().stream().filter(e -> !e.isQualified()).forEach(e -> exported.add(e.source()));
                assertEquals(publicPackages, exported, a + " (" + d.name() + ") exports its public packages, no internal one");
                assertTrue(jar.stream().noneMatch(e -> e.getName().startsWith("io/github/purefuse/kit/testing/")),
                        a + ": the test kit is fuse-testing's, not the kit's");
            }
            String license = Files.readString(root.resolve("LICENSE"));
            for (String suffix : List.of(".jar", "-sources.jar")) {
                try (JarFile jar = new JarFile(dir.resolve(a + "-" + version + suffix).toFile())) {
                    var entry = jar.getEntry("META-INF/LICENSE");
                    assertNotNull(entry, a + suffix + ": META-INF/LICENSE");
                    try (var in = jar.getInputStream(entry)) {
                        assertEquals(license, new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8),
                                a + suffix + ": the project's LICENSE");
                    }
                }
            }
            if (!a.equals("fuse-testing")) {
                Matcher dep = Pattern.compile("<dependency>(.*?)</dependency>", Pattern.DOTALL).matcher(pom);
                while (dep.find()) {
                    assertTrue(!dep.group(1).contains("junit") || dep.group(1).contains("<scope>test</scope>"),
                            a + ": a library brings no JUnit to its users: " + dep.group(1));
                }
            }
        }
        String parent = Files.readString(group.resolve("purefuse-parent").resolve(version).resolve("purefuse-parent-" + version + ".pom"));
        String bom = Files.readString(group.resolve("purefuse-bom").resolve(version).resolve("purefuse-bom-" + version + ".pom"));
        for (String pom : List.of(parent, bom)) {
            for (String tag : List.of("name", "description", "url", "licenses", "scm", "developers")) {
                // <scm child.scm...inherit.append.path="false"> has attributes
                assertTrue(Pattern.compile("<" + tag + "[\\s>]").matcher(pom).find(), "metadata <" + tag + "> in\n" + pom);
            }
            assertFalse(pom.contains("${revision}"), "resolved version in\n" + pom);
        }
        for (String a : PUBLISHED) {
            assertTrue(bom.contains("<artifactId>" + a + "</artifactId>"), "the BOM manages " + a);
        }
        assertFalse(bom.contains("junit") || bom.contains("jackson"), "the BOM manages purefuse's artifacts only");
        // A user's build resolves the parent's imported BOMs with the library's poms: JUnit's only (fuse-testing
        // needs it anyway), not depotfs's AWS SDK BOM (a consumer building offline failed on it).
        Matcher imported = Pattern.compile("<dependency>\\s*<groupId>([^<]+)</groupId>\\s*<artifactId>([^<]+)</artifactId>"
                + "((?!</dependency>).)*?<scope>import</scope>", Pattern.DOTALL).matcher(parent);
        List<String> imports = new java.util.ArrayList<>();
        while (imported.find()) {
            imports.add(imported.group(1) + ":" + imported.group(2));
        }
        assertEquals(List.of("org.junit:junit-bom"), imports, "BOMs the published parent imports");
        for (String unpublished : List.of("depotfs", "purefuse-examples", "purefuse-bench", "purefuse-site")) {
            assertFalse(Files.exists(group.resolve(unpublished)), unpublished + " is not published");
        }
        assertTrue(Files.isRegularFile(localRepo.resolve("io/github/purefuse/purefuse-bom/" + version + "/purefuse-bom-" + version + ".pom")),
                "installed into the throwaway local repository too");
    }

    @Test
    @Order(2)
    void theConsumerCompilesAndItsConformanceSuitePasses() throws Exception {
        consumer = copyTree(Path.of("src/it/consumer").toAbsolutePath(), work.resolve("consumer"));
        String out = maven(consumer, "-Dpurefuse.version=" + version, "-Dfuse.jvm.flags=" + FLAGS + " " + TRANSPORT, "verify");
        Map<String, int[]> results = surefireResults(consumer.resolve("target/surefire-reports"));
        int[] conformance = results.get("com.example.hellofs.HelloConformanceTest");
        assertTrue(conformance != null && conformance[0] >= 12, "the conformance suite ran: " + out);
        int[] mount = results.get("com.example.hellofs.HelloMountTest");
        assertTrue(mount != null && mount[0] == 2, "the mount extension's tests ran");
        for (Map.Entry<String, int[]> e : results.entrySet()) {
            assertEquals(0, e.getValue()[1] + e.getValue()[2], e.getKey() + ": no failure or error");
            assertEquals(0, e.getValue()[3], e.getKey() + ": nothing skipped");
        }
    }

    @Test
    @Order(3)
    void theConsumersMainMountsAndRealToolsSeeTheTree() throws Exception {
        assertTrue(consumer != null && Files.isRegularFile(consumer.resolve("target/classpath.txt")), "built by the previous step");
        Path mp = Files.createDirectory(work.resolve("mnt"));
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        String cp = consumer.resolve("target/classes") + ":" + Files.readString(consumer.resolve("target/classpath.txt")).strip();
        Path stderr = work.resolve("main.err");
        List<String> cmd = new ArrayList<>(List.of(java));
        cmd.addAll(List.of(FLAGS.split(" ")));
        cmd.addAll(List.of(TRANSPORT, "-cp", cp, "com.example.hellofs.Main", mp.toString()));
        Process main = new ProcessBuilder(cmd)
                .redirectOutput(work.resolve("main.out").toFile()).redirectError(stderr.toFile()).start();
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (!TestMount.isMounted(mp)) {
                if (!main.isAlive() || System.nanoTime() > deadline) {
                    fail("Main did not mount (exit " + (main.isAlive() ? "none" : main.exitValue()) + "): " + Files.readString(stderr));
                }
                Thread.sleep(50);
            }
            Duration t = Duration.ofSeconds(30);
            assertEquals("hello.txt\n", Tools.run(mp, t, "ls").ok().out());
            assertTrue(Tools.run(mp, t, "ls", "-l", "hello.txt").ok().out().startsWith("-r--r--r-- 1 "), "ls -l");
            assertEquals("Hello, world!\n", Tools.run(mp, t, "cat", "hello.txt").ok().out());
            assertEquals("14 regular file 444\n", Tools.run(mp, t, "stat", "-c", "%s %F %a", "hello.txt").ok().out());
            assertEquals("directory 555\n", Tools.run(mp, t, "stat", "-c", "%F %a", ".").ok().out());
            int year = Integer.parseInt(Tools.run(mp, t, "stat", "-c", "%y", "hello.txt").ok().out().substring(0, 4));
            assertTrue(year > 1970, "Attr.builder's default time is not the epoch: " + year);

            Tools.run(work, t, "umount", mp.toString()).ok();
            assertTrue(main.waitFor(30, TimeUnit.SECONDS), "Main returns once unmounted");
            assertEquals(0, main.exitValue(), Files.readString(stderr));
            String err = Files.readString(stderr);
            for (String jvmWarning : List.of("sun.misc.Unsafe", "System::load", "restricted method")) {
                assertFalse(err.contains(jvmWarning), "the two JVM flags keep the JVM quiet:\n" + err);
            }
        } finally {
            main.destroyForcibly();
            TestMount.forceUnmount(mp);
        }
    }

    /** Runs Maven in {@code dir} with the throwaway local repository, offline from the outside world. */
    String maven(Path dir, String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of("mvn", "-B", "-ntp", "-s", settings.toString(),
                "-Dmaven.repo.local=" + localRepo, "-Dstyle.color=never"));
        cmd.addAll(List.of(args));
        Path log = Files.createTempFile(work, "mvn-", ".log");
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).redirectOutput(log.toFile());
        Map<String, String> env = pb.environment();
        // A consumer points Maven at a JDK 21+ with JAVA_HOME: the one running this test.
        env.put("JAVA_HOME", System.getProperty("java.home"));
        env.remove("MAVEN_OPTS");
        env.remove("MAVEN_CONFIG");
        if (Runtime.version().feature() >= 23) {
            env.put("MAVEN_OPTS", "--sun-misc-unsafe-memory-access=allow");   // Maven's own Guice/Guava on JDK 23+
        }
        Process p = pb.start();
        p.getOutputStream().close();
        if (!p.waitFor(BUILD.toSeconds(), TimeUnit.SECONDS)) {
            p.destroyForcibly();
            fail("mvn " + String.join(" ", args) + " did not finish within " + BUILD + ":\n" + tail(Files.readString(log)));
        }
        String out = Files.readString(log, StandardCharsets.UTF_8);
        if (p.exitValue() != 0) {
            fail("mvn " + String.join(" ", args) + " in " + dir + " exited " + p.exitValue() + ":\n" + tail(out));
        }
        return out;
    }

    /** The reactor's poms (Maven reads every module's) and the sources of the published modules. */
    Path copyPublishedSources(Path to) throws IOException {
        Files.createDirectories(to);
        Files.copy(root.resolve("pom.xml"), to.resolve("pom.xml"));
        Files.copy(root.resolve("LICENSE"), to.resolve("LICENSE"));
        Matcher m = Pattern.compile("<module>([^<]+)</module>").matcher(Files.readString(root.resolve("pom.xml")));
        while (m.find()) {
            Path module = Files.createDirectories(to.resolve(m.group(1)));
            Files.copy(root.resolve(m.group(1)).resolve("pom.xml"), module.resolve("pom.xml"));
        }
        for (String a : PUBLISHED) {
            copyTree(root.resolve(a).resolve("src/main"), to.resolve(a).resolve("src/main"));
        }
        return to;
    }

    static Path copyTree(Path from, Path to) throws IOException {
        try (Stream<Path> s = Files.walk(from)) {
            for (Path p : s.toList()) {
                Path target = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(target);
                } else if (!p.toString().contains("/target/")) {
                    Files.copy(p, target);
                }
            }
        }
        return to;
    }

    /** Test class name to {tests, failures, errors, skipped}, from Surefire's XML reports. */
    static Map<String, int[]> surefireResults(Path reports) throws IOException {
        Map<String, int[]> out = new TreeMap<>();
        Pattern suite = Pattern.compile("<testsuite[^>]*?name=\"([^\"]+)\"[^>]*?tests=\"(\\d+)\"[^>]*?errors=\"(\\d+)\"[^>]*?skipped=\"(\\d+)\"[^>]*?failures=\"(\\d+)\"");
        try (Stream<Path> s = Files.list(reports)) {
            for (Path p : s.filter(f -> f.getFileName().toString().endsWith(".xml")).toList()) {
                Matcher m = suite.matcher(Files.readString(p));
                if (m.find()) {
                    out.put(m.group(1), new int[] {Integer.parseInt(m.group(2)), Integer.parseInt(m.group(5)),
                        Integer.parseInt(m.group(3)), Integer.parseInt(m.group(4))});
                }
            }
        }
        assertFalse(out.isEmpty(), "no Surefire reports in " + reports);
        return out;
    }

    static String tail(String s) {
        return s.length() > 6000 ? "..." + s.substring(s.length() - 6000) : s;
    }
}
