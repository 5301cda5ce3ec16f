package io.github.purefuse.depotfs.it;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;

/**
 * A copy of the repository's launchers as a user runs them ({@code bin/depotfs} and friends), beside this build's
 * packaged jar and runtime class path, laid out as the launcher's own build leaves them, so that it runs them
 * without building.
 */
final class LauncherCopy {

    private LauncherCopy() {
    }

    /**
     * Makes {@code root} a repository with the given files of {@code bin/} and the depotfs module as built.
     *
     * @param root      the directory to make (its parent must exist)
     * @param bin       files under {@code bin/} to copy, e.g. {@code depotfs}, {@code lib/common.sh}
     * @param classPath turns the build's runtime class path (jar paths, sorted) into the copy's
     * @return {@code root}
     * @throws IOException if a copy fails
     */
    static Path create(Path root, List<String> bin, UnaryOperator<List<String>> classPath) throws IOException {
        Files.createDirectories(root.resolve("bin/lib"));
        for (String f : bin) {
            Files.copy(Path.of("..", "bin", f), root.resolve("bin").resolve(f));
        }
        Path pom = Files.writeString(root.resolve("pom.xml"), "<project/>\n");
        Files.setLastModifiedTime(pom, FileTime.from(Instant.now().minusSeconds(3600)));
        Path target = Files.createDirectories(root.resolve("depotfs/target"));
        Path built = Path.of("target").toAbsolutePath();
        try (Stream<Path> jars = Files.list(built)) {
            Path jar = jars.filter(p -> p.getFileName().toString().matches("depotfs-[0-9.]+(-SNAPSHOT)?\\.jar"))
                    .findFirst().orElseThrow();
            Files.copy(jar, target.resolve(jar.getFileName()));
        }
        try (Stream<Path> libs = Files.list(built.resolve("lib"))) {
            List<String> jars = classPath.apply(new ArrayList<>(libs.map(Path::toString).sorted().toList()));
            Files.writeString(target.resolve("runtime.classpath"), String.join(":", jars));
        }
        Files.createFile(target.resolve(".launcher-built"));
        return root;
    }
}
