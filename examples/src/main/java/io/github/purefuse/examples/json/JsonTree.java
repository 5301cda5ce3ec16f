package io.github.purefuse.examples.json;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.github.purefuse.kit.tree.MemoryTree;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * A JSON document as a tree of directories and files, built with the kit's {@link MemoryTree}: an
 * object is a directory of its members, an array a directory of its elements named {@code 0},
 * {@code 1}, ..., and every other value a file holding it and a newline (a string's text; a number,
 * {@code true}, {@code false} or {@code null} as written in JSON). Every node is dated like the file.
 *
 * <pre>
 * {"name": "purefuse", "tags": ["fuse", "java"], "stars": 42}
 *
 * /name     "purefuse\n"
 * /tags/0   "fuse\n"
 * /tags/1   "java\n"
 * /stars    "42\n"
 * </pre>
 *
 * Member names are taken as they are: a name holding {@code '/'}, {@code "."}, {@code ".."} or more than
 * 255 bytes is listed in the kit's short form. Duplicate members: the last one wins (Jackson's default).
 */
public final class JsonTree {
    private JsonTree() {
    }

    /**
     * Reads a JSON file into a tree.
     *
     * @param file the file; its top level may be any value (a scalar gives a root holding one file,
     *             {@code value})
     * @return the tree
     * @throws IOException if the file cannot be read, is empty or is not JSON
     * @throws IllegalArgumentException if a member name is empty (no file may be called that)
     */
    // @start region="json-tree"
    public static MemoryTree of(Path file) throws IOException {
        JsonNode json;
        try (InputStream in = Files.newInputStream(file)) {
            json = new ObjectMapper().readTree(in);
        }
        if (json.isMissingNode()) {
            throw new IOException("no JSON value in " + file);
        }
        MemoryTree.Builder tree = MemoryTree.builder().times(Files.getLastModifiedTime(file).toInstant());
        if (json.isContainerNode()) {
            addChildren(tree.root(), json);
        } else {
            add(tree.root(), "value", json);
        }
        return tree.build();
    }

    private static void add(MemoryTree.Directory dir, String name, JsonNode value) {
        if (value.isContainerNode()) {
            addChildren(dir.dir(name), value);
        } else {
            dir.file(name, (value.isTextual() ? value.textValue() : value.toString()) + "\n");
        }
    }

    private static void addChildren(MemoryTree.Directory dir, JsonNode container) {
        if (container.isArray()) {
            for (int i = 0; i < container.size(); i++) {
                add(dir, Integer.toString(i), container.get(i));
            }
        } else {
            for (Map.Entry<String, JsonNode> member : container.properties()) {
                add(dir, member.getKey(), member.getValue());
            }
        }
    }
    // @end
}
