package io.github.purefuse.examples.hello;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * One hello everywhere: the README's "Write a filesystem" code and the hello in {@code PathFileSystem}'s
 * Javadoc are the lines of region {@code hello} of {@link HelloPath}, which the build compiles, the site
 * shows through {@code {@snippet}} and {@code HelloPathIT} mounts.
 */
class GettingStartedTest {
    static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    static final Path SOURCE = Path.of("src/main/java/io/github/purefuse/examples/hello/HelloPath.java");

    /** {@return the lines between {@code // @start region="name"} and the next {@code // @end}} */
    static List<String> region(Path file, String name) throws IOException {
        List<String> lines = Files.readAllLines(file);
        int start = lines.indexOf("// @start region=\"" + name + "\"");
        int end = lines.subList(start + 1, lines.size()).indexOf("// @end") + start + 1;
        assertTrue(start >= 0 && end > start, "region " + name + " in " + file);
        return lines.subList(start + 1, end);
    }

    @Test
    void theHelloIsAtMost25Lines() throws IOException {
        int n = region(SOURCE, "hello").size();
        assertTrue(n <= 25, "the getting-started hello has " + n + " lines");
    }

    @Test
    void theReadmeShowsTheSameHello() throws IOException {
        String code = String.join("\n", region(SOURCE, "hello"));
        String readme = Files.readString(ROOT.resolve("README.md"));
        assertTrue(readme.contains("```java\n" + code + "\n```"),
                "README.md's hello differs from region \"hello\" of " + SOURCE + "; it should read:\n" + code);
    }

    @Test
    void thePathFileSystemJavadocShowsTheSameHello() throws IOException {
        String javadoc = region(SOURCE, "hello").stream().map(l -> (" * " + l).stripTrailing())
                .collect(Collectors.joining("\n"));
        Path kit = ROOT.resolve("fuse-readonly-kit/src/main/java/io/github/purefuse/kit/path/PathFileSystem.java");
        assertTrue(Files.readString(kit).contains(" * {@snippet :\n" + javadoc + "\n * }"),
                "PathFileSystem's hello differs from region \"hello\" of " + SOURCE + "; it should read:\n" + javadoc);
    }

    /** The import lists the site shows above the hello and the JSON tree are those of the classes it quotes. */
    @Test
    void theSitesImportListsAreTheExamplesImports() throws IOException {
        String site = Files.readString(ROOT.resolve("site/src/main/javadoc/overview.html"));
        for (String cls : List.of("hello.HelloPath", "json.JsonTree")) {
            Path file = Path.of("src/main/java/io/github/purefuse/examples/" + cls.replace('.', '/') + ".java");
            String imports = Files.readAllLines(file).stream().filter(l -> l.startsWith("import "))
                    .collect(Collectors.joining("\n"));
            String shown = "<pre>\n" + imports + "\n</pre>\n{@snippet class=\"io.github.purefuse.examples." + cls + "\"";
            assertTrue(site.contains(shown),
                    "site/src/main/javadoc/overview.html should show the imports of " + file + " before its snippet:\n" + imports);
        }
    }

    /** The site's "Use it from your project" pom pins the same plugins as the README's (without them it does not build). */
    @Test
    void theSiteShowsTheReadmesBuildBlock() throws IOException {
        String readme = Files.readString(ROOT.resolve("README.md"));
        String build = readme.substring(readme.indexOf("<build>\n"), readme.indexOf("</build>") + "</build>".length());
        String site = Files.readString(ROOT.resolve("site/src/main/javadoc/overview.html"));
        assertTrue(site.contains(build) && site.contains("<maven.compiler.release>21</maven.compiler.release>"),
                "site/src/main/javadoc/overview.html's pom lacks README.md's build block:\n" + build);
    }
}
