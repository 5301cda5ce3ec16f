package io.github.purefuse.depotfs.fs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.purefuse.api.types.FileType;
import io.github.purefuse.depotfs.cli.BrokenDepots;
import io.github.purefuse.depotfs.store.DepotException;
import io.github.purefuse.depotfs.store.LocalDepot;
import io.github.purefuse.kit.path.FsPath;
import io.github.purefuse.kit.path.PathEntry;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BrokenRootsTest {

    @TempDir
    Path tmp;

    @Test
    void brokenRootsAreListedAndAnswerEioWhileTheOthersWork() throws Exception {
        Path dir = BrokenDepots.withBrokenRoots(tmp);
        try (LocalDepot depot = LocalDepot.open(dir)) {
            DepotFileSystem fs = DepotFileSystem.open(depot, null, 0, 0);
            List<PathEntry> top = fs.list(FsPath.of("/"));
            assertEquals(List.of("bad name", "corrupt", "good", "missing"), top.stream().map(PathEntry::name).toList());
            assertTrue(top.stream().allMatch(e -> e.attr().type() == FileType.DIRECTORY));
            assertEquals(List.of("good"), fs.rootNames());
            assertEquals(List.of("a"), fs.list(FsPath.of("/good")).stream().map(PathEntry::name).toList());
            for (String broken : List.of("bad name", "corrupt", "missing")) {
                DepotException e = assertThrows(DepotException.class, () -> fs.list(FsPath.of("/" + broken)));
                assertTrue(e.getMessage().startsWith("root '" + broken + "' is broken: "), e.getMessage());
                assertThrows(DepotException.class, () -> fs.stat(FsPath.of("/" + broken + "/a")));
            }
        }
    }
}
