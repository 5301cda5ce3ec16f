package io.github.purefuse.depotfs.store;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.channels.Channels;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * FORMAT.md ("Roots") and {@link WritableDepot#setRoot}: root names are 1 to 255 characters. A local
 * depot writes {@code refs/.NAME.tmp-HEX} first, which is over NAME_MAX (255 bytes) for names longer
 * than 233 characters: such a root could not be set ("File name too long"); the temporary name is cut now.
 */
class RootNameLengthTest {
    @TempDir
    Path tmp;

    @Test
    void aRootNameOf255CharactersCanBeSetOnALocalDepot() throws Exception {
        String name = "r".repeat(255);
        try (LocalDepot d = LocalDepot.openOrCreate(tmp.resolve("depot"))) {
            WritableDepot.Stored o = d.putObject(Channels.newChannel(new java.io.ByteArrayInputStream(new byte[] {'x'})), null);
            Hash bundle = d.putBundle(List.of(BundleEntry.object("x", o.hash(), 1, 0, false))).hash();
            d.setRoot(name, null, bundle);
            assertEquals(Optional.of(bundle), d.root(name));
        }
    }
}
