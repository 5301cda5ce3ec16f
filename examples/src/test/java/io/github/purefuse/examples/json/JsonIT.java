package io.github.purefuse.examples.json;

import static io.github.purefuse.testing.Tools.ok;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.purefuse.channel.MountOptions;
import io.github.purefuse.kit.path.PathAdapter;
import io.github.purefuse.testing.TestMount;
import io.github.purefuse.testing.Tools;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * JSON files mounted on the real kernel and read back with real tools; what they should show comes from
 * Python's {@code json} module, a parser independent of the Jackson one the example uses.
 */
class JsonIT {
    /** Writes the tree a JSON file should give into a directory ({@code argv[1]} into {@code argv[2]}). */
    static final String PY_REFERENCE = """
            import json, os, sys
            def write(path, v):
                if isinstance(v, (dict, list)):
                    os.mkdir(path)
                    items = v.items() if isinstance(v, dict) else ((str(i), x) for i, x in enumerate(v))
                    for k, x in items:
                        write(os.path.join(path, k), x)
                else:
                    with open(path, 'w', encoding='utf-8', newline='') as f:
                        f.write((v if isinstance(v, str) else json.dumps(v)) + '\\n')
            with open(sys.argv[1], encoding='utf-8') as f:
                write(sys.argv[2], json.load(f))
            """;

    /** Rebuilds the document from the mount and compares it with json.load of the file; prints the node count. */
    static final String PY_READ_BACK = """
            import json, os, sys
            def value(text):
                text = text[:-1]
                try:
                    return json.loads(text)
                except ValueError:
                    return text
            def read(path, like):
                if isinstance(like, dict):
                    assert sorted(os.listdir(path)) == sorted(like), path
                    return {k: read(os.path.join(path, k), like[k]) for k in like}
                if isinstance(like, list):
                    assert sorted(os.listdir(path), key=int) == [str(i) for i in range(len(like))], path
                    return [read(os.path.join(path, str(i)), x) for i, x in enumerate(like)]
                with open(path, encoding='utf-8') as f:
                    text = f.read()
                return text[:-1] if isinstance(like, str) else value(text)
            with open(sys.argv[1], encoding='utf-8') as f:
                doc = json.load(f)
            assert read(sys.argv[2], doc) == doc
            count = 0
            for _, dirs, files in os.walk(sys.argv[2]):
                count += len(dirs) + len(files)
            print(count)
            """;

    /** A document with every kind of value, nesting, empty containers and non-ASCII names. */
    static final String PY_SAMPLE = """
            import json, sys
            doc = {
                "name": "purefuse", "stars": 42, "ratio": 0.25, "ok": True, "no": False, "none": None,
                "tags": ["fuse", "java", {"nested": [1, 2, [3]]}],
                "empty": {}, "nothing": [],
                "multi line": "first\\nsecond",
                "gr\\u00fc\\u00dfe": {"\\u65e5\\u672c": "\\u3053\\u3093\\u306b\\u3061\\u306f"},
                "big": {"k%04d" % i: {"id": i, "even": i % 2 == 0, "label": "item %d" % i} for i in range(1500)},
            }
            with open(sys.argv[1], 'w', encoding='utf-8') as f:
                json.dump(doc, f, ensure_ascii=False, indent=1)
            """;

    @TempDir
    Path tmp;

    @Test
    void aDocumentReadsBackThroughTheMountAsPythonParsesIt() throws Exception {
        Path json = tmp.resolve("doc.json");
        ok(tmp, "python3", "-c", PY_SAMPLE, json.toString());
        Path ref = tmp.resolve("ref");
        ok(tmp, "python3", "-c", PY_REFERENCE, json.toString(), ref.toString());
        try (TestMount m = TestMount.mount(PathAdapter.builder(JsonTree.of(json)).immutable().build(), MountOptions.defaults())) {
            Path mnt = m.mountpoint();
            ok(tmp, "diff", "-r", ref.toString(), mnt.toString());
            // paths, types, sizes and link counts as find sees them, against the directory Python wrote
            String fmt = "%P %y %s %n\n";
            String expected = sorted(ok(ref, "find", ".", "-mindepth", "1", "-printf", "%P %y %s %n\n").replaceAll("(?m)^(\\S+ d) \\d+", "$1 0"));
            assertEquals(expected, sorted(ok(mnt, "find", ".", "-mindepth", "1", "-printf", fmt)));
            assertEquals("purefuse\n", ok(mnt, "cat", "name"));
            assertEquals("first\nsecond\n", ok(mnt, "cat", "multi line"));
            assertEquals("\u3053\u3093\u306b\u3061\u306f\n", Files.readString(mnt.resolve("gr\u00fc\u00dfe/\u65e5\u672c")));
            assertEquals("dr-xr-xr-x 1502\n", ok(mnt, "stat", "-c", "%A %h", "big"), "2 + 1500 subdirectories");
            assertEquals("-r--r--r-- 1 3\n", ok(mnt, "stat", "-c", "%A %h %s", "stars"));
            assertEquals("item 7\n", ok(mnt, "cat", "big/k0007/label"));
            String count = ok(tmp, "python3", "-c", PY_READ_BACK, json.toString(), mnt.toString()).strip();
            assertEquals(ok(ref, "sh", "-c", "find . -mindepth 1 | wc -l").strip(), count);
            assertTrue(Integer.parseInt(count) > 6000, count);
            assertEquals("1\n", ok(mnt, "sh", "-c", "touch x 2>&1 | grep -c 'Read-only file system' || true"));
        }
    }

    @Test
    void awkwardMemberNamesAreShortenedAndStillRead() throws Exception {
        Path json = tmp.resolve("names.json");
        Files.writeString(json, "{\"a/b\": \"slash\", \".\": \"dot\", \"..\": \"dotdot\", \"" + "n".repeat(300)
                + "\": \"long\", \"plain\": \"ok\"}");
        try (TestMount m = TestMount.mount(PathAdapter.builder(JsonTree.of(json)).immutable().build(), MountOptions.defaults())) {
            Path mnt = m.mountpoint();
            List<String> names = ok(mnt, "ls", "-A").lines().sorted().toList();
            assertEquals(5, names.size(), names.toString());
            assertTrue(names.contains("plain"), names.toString());
            assertTrue(names.stream().allMatch(n -> n.length() <= 255 && !n.equals(".") && !n.equals("..")), names.toString());
            // every file is readable under its listed name: the contents are the five values
            String contents = ok(mnt, "sh", "-c", "for f in * .?*; do [ \"$f\" = .. ] || cat \"./$f\"; done");
            assertEquals(List.of("dot", "dotdot", "long", "ok", "slash"), contents.lines().sorted().toList());
        }
    }

    private static String sorted(String lines) {
        return String.join("\n", lines.lines().sorted().toList()) + "\n";
    }
}
