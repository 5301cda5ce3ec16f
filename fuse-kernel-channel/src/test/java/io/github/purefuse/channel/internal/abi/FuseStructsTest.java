package io.github.purefuse.channel.internal.abi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Checks every size and offset in {@link FuseStructs} against fuse-struct-offsets-7.45.txt, which was
 * produced by compiling the 7.45 header with gcc on x86_64.
 */
class FuseStructsTest {

    @Test
    void everyStructMatchesTheCompiledHeader() throws IOException, ReflectiveOperationException {
        String text;
        try (InputStream in = getClass().getResourceAsStream("/fuse-struct-offsets-7.45.txt")) {
            text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        Map<String, Class<?>> nested = new HashMap<>();
        for (Class<?> c : FuseStructs.class.getDeclaredClasses()) {
            nested.put(c.getSimpleName(), c);
        }
        Pattern struct = Pattern.compile("struct (\\w+) size=(\\d+) align=\\d+");
        Pattern field = Pattern.compile("\\s+(\\d+)\\s+\\S+\\s+(\\w+).*");
        Class<?> current = null;
        int checked = 0;
        for (String line : text.split("\n")) {
            Matcher s = struct.matcher(line);
            if (s.matches()) {
                current = nested.get(javaName(s.group(1)));
                if (current != null) {
                    assertEquals(Integer.parseInt(s.group(2)), current.getField("BYTES").getInt(null), s.group(1));
                    checked++;
                }
                continue;
            }
            Matcher f = field.matcher(line);
            if (f.matches() && current != null) {
                String constant = f.group(2).replaceAll("^_+", "").toUpperCase();
                assertEquals(Integer.parseInt(f.group(1)), current.getField(constant).getInt(null),
                        current.getSimpleName() + "." + constant);
                checked++;
            }
        }
        assertTrue(checked > 300, "checked " + checked + " sizes and offsets");
        assertTrue(nested.size() >= 60);
    }

    static String javaName(String c) {
        StringBuilder sb = new StringBuilder();
        for (String part : c.split("_")) {
            sb.append(Character.toUpperCase(part.charAt(0))).append(part.substring(1));
        }
        return sb.toString();
    }

    @Test
    void recordAlignment() {
        assertEquals(0, FuseStructs.align(0));
        assertEquals(32, FuseStructs.align(25));
        assertEquals(32, FuseStructs.align(32));
        assertEquals(160, FuseStructs.align(153));
    }
}
