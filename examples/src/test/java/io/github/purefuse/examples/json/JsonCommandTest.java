package io.github.purefuse.examples.json;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.github.purefuse.api.types.Attr;
import io.github.purefuse.kit.path.FsPath;
import io.github.purefuse.kit.path.PathEntry;
import io.github.purefuse.kit.tree.MemoryTree;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** The JSON example without a mount: the tree it builds, and its errors for bad input. */
class JsonCommandTest {
    @TempDir
    Path tmp;

    String run(String... args) {
        StringWriter err = new StringWriter();
        CommandLine cl = new CommandLine(new JsonCommand());
        cl.setErr(new PrintWriter(err, true));
        assertEquals(1, cl.execute(args), err::toString);
        return err.toString();
    }

    static String text(MemoryTree tree, String path) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(1000);
        int n = tree.read(FsPath.of(path), 0, b);
        return new String(b.array(), 0, Math.max(n, 0), StandardCharsets.UTF_8);
    }

    @Test
    void valuesBecomeFilesAndContainersDirectories() throws IOException {
        Path f = Files.writeString(tmp.resolve("doc.json"), """
                {"name": "purefuse", "tags": ["fuse", "java"], "stars": 42, "ratio": 0.25, "ok": true,
                 "none": null, "empty": {}, "list": [], "deep": {"a": {"b": "c"}}}
                """);
        MemoryTree tree = JsonTree.of(f);
        List<String> names = tree.list(FsPath.ROOT).stream().map(PathEntry::name).toList();
        assertEquals(List.of("name", "tags", "stars", "ratio", "ok", "none", "empty", "list", "deep"), names);
        assertEquals("purefuse\n", text(tree, "/name"));
        assertEquals("java\n", text(tree, "/tags/1"));
        assertEquals("42\n", text(tree, "/stars"));
        assertEquals("0.25\n", text(tree, "/ratio"));
        assertEquals("true\n", text(tree, "/ok"));
        assertEquals("null\n", text(tree, "/none"));
        assertEquals("c\n", text(tree, "/deep/a/b"));
        Attr root = tree.stat(FsPath.ROOT).orElseThrow();
        assertEquals(2 + 4, root.nlink(), "tags, empty, list, deep");
        assertEquals(Files.getLastModifiedTime(f).toInstant(), root.mtime());
        assertEquals(9, tree.stat(FsPath.of("/name")).orElseThrow().size());
    }

    @Test
    void aTopLevelScalarIsOneFile() throws IOException {
        MemoryTree tree = JsonTree.of(Files.writeString(tmp.resolve("s.json"), "\"just text\""));
        assertEquals("just text\n", text(tree, "/value"));
    }

    @Test
    void anEmptyMemberNameIsAClearError() throws IOException {
        Path f = Files.writeString(tmp.resolve("e.json"), "{\"a\": {\"\": 1}}");
        assertEquals("empty name in /a", assertThrows(IllegalArgumentException.class, () -> JsonTree.of(f)).getMessage());
        assertEquals("fuse-example: cannot mount " + f + ": empty name in /a\n", run(f.toString(), tmp.toString()));
    }

    @Test
    void badFilesAreReportedWithTheirReason() throws IOException {
        assertEquals("fuse-example: cannot mount /nonexist.json: no such file or directory\n", run("/nonexist.json", "/tmp"));
        Path bad = Files.writeString(tmp.resolve("bad.json"), "{\"a\": 1,\n  \"b\": }\n");
        String err = run(bad.toString(), tmp.toString());
        assertEquals(true, err.startsWith("fuse-example: cannot mount " + bad + ": not valid JSON at line 2, column "), err);
        Path empty = Files.writeString(tmp.resolve("empty.json"), "");
        assertEquals("fuse-example: cannot mount " + empty + ": no JSON value in " + empty + "\n", run(empty.toString(), tmp.toString()));
    }
}
