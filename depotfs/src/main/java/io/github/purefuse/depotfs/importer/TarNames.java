package io.github.purefuse.depotfs.importer;

import io.github.purefuse.api.types.FileNames;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.Charset;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CharsetEncoder;
import java.nio.charset.CoderResult;
import java.nio.charset.StandardCharsets;
import java.nio.charset.spi.CharsetProvider;
import java.util.Iterator;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The charset the importer reads tar header names with, so that a name that is not UTF-8 is seen as such.
 *
 * <p>commons-compress decodes the name fields of a ustar or GNU header (and a GNU long name) with the charset it
 * is given, and for UTF-8 it replaces each malformed byte with {@code '?'}: two Latin-1 names {@code caf\xe9} and
 * {@code caf\xeb} both became {@code caf?}, one silently lost. It takes the charset only by name, so this one is
 * registered as a {@link CharsetProvider} (META-INF/services) under {@link #NAME}: it decodes as
 * {@link FileNames#decode} does (UTF-8, each other byte as {@code U+DC00 + byte}), so {@link FileNames#hasEscapes}
 * tells such a name and {@link FileNames#encode} gives its bytes back. Names from a pax header are UTF-8 by the
 * standard and decoded by commons-compress itself. The charset only decodes; nothing encodes with it.
 */
public final class TarNames extends CharsetProvider {
    /** The charset's name, for {@code new TarArchiveInputStream(in, TarNames.NAME)}. */
    public static final String NAME = "x-depotfs-utf-8-surrogateescape";
    private static final Charset CHARSET = new Escaped();

    /** Made by {@link java.util.ServiceLoader}. */
    public TarNames() {
    }

    @Override
    public Iterator<Charset> charsets() {
        return List.of(CHARSET).iterator();
    }

    @Override
    public @Nullable Charset charsetForName(String charsetName) {
        return NAME.equalsIgnoreCase(charsetName) ? CHARSET : null;
    }

    private static final class Escaped extends Charset {
        Escaped() {
            super(NAME, new String[0]);
        }

        @Override
        public boolean contains(Charset cs) {
            return cs.equals(this) || StandardCharsets.UTF_8.contains(cs);
        }

        @Override
        public CharsetDecoder newDecoder() {
            return new CharsetDecoder(this, 1.0f, 1.0f) {
                /** Takes the whole input at once, as {@code CharsetDecoder.decode(ByteBuffer)} gives it. */
                @Override
                protected CoderResult decodeLoop(ByteBuffer in, CharBuffer out) {
                    byte[] bytes = new byte[in.remaining()];
                    in.duplicate().get(bytes);
                    String s = FileNames.decode(bytes);
                    if (out.remaining() < s.length()) {
                        return CoderResult.OVERFLOW;
                    }
                    out.put(s);
                    in.position(in.limit());
                    return CoderResult.UNDERFLOW;
                }
            };
        }

        @Override
        public boolean canEncode() {
            return false;
        }

        @Override
        public CharsetEncoder newEncoder() {
            throw new UnsupportedOperationException(NAME + " only decodes");
        }
    }
}
