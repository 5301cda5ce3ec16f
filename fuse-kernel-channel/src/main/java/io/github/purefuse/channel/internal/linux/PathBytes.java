package io.github.purefuse.channel.internal.linux;

import io.github.purefuse.api.types.FileNames;
import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * Local paths byte for byte (the implementation of {@code LocalFiles.name}, {@code resolve} and
 * {@code bytes}, and how {@link NativeFile} and {@code LocalFiles}' seeks open files): Java's {@link Path}
 * keeps a name's bytes, but its strings go through the platform's file name charset, which replaces bytes
 * that are not UTF-8. The path's {@code file:} URI carries the raw bytes in percent escapes, both ways.
 */
public final class PathBytes {

    private static final boolean UTF8_PLATFORM = "UTF-8".equalsIgnoreCase(System.getProperty("sun.jnu.encoding", ""));
    private static final char[] HEX = "0123456789ABCDEF".toCharArray();

    private PathBytes() {
    }

    /**
     * The last name of a local path, as a {@link FileNames} string.
     *
     * @param file a path with at least one name
     * @return its last name's bytes, decoded by {@link FileNames#decode}
     * @throws IllegalArgumentException if the path has no name (the root)
     */
    public static String name(Path file) {
        Path name = file.getFileName();
        if (name == null) {
            throw new IllegalArgumentException("no name: " + file);
        }
        String s = name.toString();
        if (UTF8_PLATFORM && s.indexOf('\uFFFD') < 0) {
            return s;                                    // exact: nothing was replaced
        }
        return FileNames.decode(of(name));
    }

    /**
     * Resolves names against a local directory, byte for byte.
     *
     * @param dir      a local directory
     * @param relative {@link FileNames} strings joined by {@code '/'} (as a mirror keeps the paths it
     *                 serves); empty for {@code dir} itself
     * @return the path whose names have exactly the bytes {@link FileNames#encode} gives for {@code relative}
     * @throws IllegalArgumentException if {@code relative} holds a lone surrogate that stands for no byte
     */
    public static Path resolve(Path dir, String relative) {
        if (relative.isEmpty()) {
            return dir;
        }
        if (UTF8_PLATFORM && !FileNames.hasEscapes(relative)) {
            return dir.resolve(relative);
        }
        StringBuilder uri = new StringBuilder("file://").append(dir.toAbsolutePath().toUri().getRawPath());
        if (uri.charAt(uri.length() - 1) != '/') {
            uri.append('/');
        }
        for (byte b : FileNames.encode(relative)) {
            int c = b & 0xFF;
            if (c == '/' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
                    || c == '-' || c == '.' || c == '_' || c == '~') {
                uri.append((char) c);
            } else {
                uri.append('%').append(HEX[c >> 4]).append(HEX[c & 15]);
            }
        }
        return Path.of(URI.create(uri.toString()));
    }

    /**
     * The bytes of a local path as the kernel has them (a link target from {@code Files.readSymbolicLink},
     * say), relative or absolute.
     *
     * @param path the path
     * @return its bytes, without a NUL
     */
    public static byte[] of(Path path) {
        String s = path.toString();
        if (UTF8_PLATFORM && s.indexOf('\uFFFD') < 0) {
            return s.getBytes(StandardCharsets.UTF_8);
        }
        boolean relative = !path.isAbsolute();
        String raw = (relative ? Path.of("/").resolve(path) : path).toUri().getRawPath();
        if (relative) {
            raw = raw.substring(1);
        }
        if (raw.length() > 1 && raw.endsWith("/") && !s.endsWith("/")) {
            raw = raw.substring(0, raw.length() - 1);    // toUri marks a directory with a slash
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream(raw.length());
        for (int i = 0; i < raw.length(); i++) {
            char c = raw.charAt(i);
            if (c == '%' && i + 2 < raw.length()) {
                out.write(Integer.parseInt(raw, i + 1, i + 3, 16));
                i += 2;
            } else {
                out.write(c);                            // the raw path of a URI is ASCII
            }
        }
        return out.toByteArray();
    }

}
