package io.github.purefuse.depotfs.tree;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.purefuse.depotfs.store.Bundle;
import io.github.purefuse.depotfs.store.BundleEntry;
import io.github.purefuse.depotfs.store.DepotException;
import io.github.purefuse.depotfs.store.Hash;
import io.github.purefuse.depotfs.store.MemoryDepot;
import io.github.purefuse.depotfs.store.WritableDepot;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class DepotTreeTest {

    private final MemoryDepot depot = new MemoryDepot();
    private Hash docHash;

    @BeforeEach
    void tree() throws Exception {
        WritableDepot.Stored readme = depot.putObject("readme".getBytes(StandardCharsets.UTF_8));
        WritableDepot.Stored doc = depot.putBundle(List.of(BundleEntry.object("README", readme.hash(), 6, 1, false)));
        docHash = doc.hash();
        WritableDepot.Stored share = depot.putBundle(List.of(BundleEntry.bundle("doc", doc.hash(), doc.size(), 2),
                BundleEntry.bundle("man", depot.putBundle(List.of()).hash(), depot.putBundle(List.of()).size(), 3)));
        depot.setRoot("share", null, share.hash());
    }

    @Test
    void linkAddsThePathRewritesAncestorsAndKeepsTheOldOnes() throws Exception {
        Hash before = depot.root("share").orElseThrow();
        Hash after = DepotTree.link(depot, DepotPath.parse("share/doc"), DepotPath.parse("share/man/doc-again"));
        assertEquals(after, depot.root("share").orElseThrow());
        DepotTree.Resolved r = DepotTree.resolve(depot, DepotPath.parse("share/man/doc-again/README"));
        assertEquals(6, r.entry().size());
        assertEquals(docHash, DepotTree.resolve(depot, DepotPath.parse("share/man/doc-again")).bundleHash().orElseThrow());
        assertEquals(docHash, DepotTree.resolve(depot, DepotPath.parse("share/doc")).bundleHash().orElseThrow());
        Bundle top = depot.bundle(after);
        assertEquals(3, top.entry("man").orElseThrow().mtimeNs(), "mtimes are kept");
        assertEquals(2 * 6, top.totalBytes(), "the linked bundle counts once per path");
        assertTrue(depot.bundle(before).entry("doc").isPresent(), "the old tree is still intact");

        DepotTree.link(depot, DepotPath.parse("share/doc"), DepotPath.parse("docs"));
        assertEquals(docHash, depot.root("docs").orElseThrow());
    }

    @Test
    void linkingABundleBelowItselfIsRefusedAsACycle() throws Exception {
        Hash before = depot.root("share").orElseThrow();
        for (String target : List.of("share/doc/again", "share/doc/x/y", "share/doc")) {
            DepotException e = assertThrows(DepotException.class,
                    () -> DepotTree.link(depot, DepotPath.parse("share/doc"), DepotPath.parse(target)));
            assertEquals(DepotException.Reason.INVALID, e.reason());
        }
        DepotException whole = assertThrows(DepotException.class,
                () -> DepotTree.link(depot, DepotPath.parse("share"), DepotPath.parse("share/man/all")));
        assertTrue(whole.getMessage().contains("cycle"), whole.getMessage());
        assertEquals(before, depot.root("share").orElseThrow(), "nothing changed");
    }

    @Test
    void badLinkTargetsGiveClearErrors() throws Exception {
        assertEquals("share/doc/README exists already", assertThrows(DepotException.class,
                () -> DepotTree.link(depot, DepotPath.parse("share/man"), DepotPath.parse("share/doc/README"))).getMessage());
        assertEquals("share/doc/README is not a bundle", assertThrows(DepotException.class,
                () -> DepotTree.link(depot, DepotPath.parse("share/man"), DepotPath.parse("share/doc/README/x"))).getMessage());
        DepotException noSource = assertThrows(DepotException.class,
                () -> DepotTree.link(depot, DepotPath.parse("share/nothing"), DepotPath.parse("share/x")));
        assertEquals(DepotException.Reason.NOT_FOUND, noSource.reason());
        assertEquals("cannot link share/nothing: no such path in the depot: share/nothing", noSource.getMessage());
        // which argument is wrong, and that link makes no parents (a tester's trial of the site's example)
        DepotException noParent = assertThrows(DepotException.class,
                () -> DepotTree.link(depot, DepotPath.parse("share/doc"), DepotPath.parse("share/shells/doc")));
        assertEquals(DepotException.Reason.NOT_FOUND, noParent.reason());
        assertEquals("cannot link at share/shells/doc: no such path in the depot: share/shells (link creates no"
                + " bundles: the new path's parent must exist)", noParent.getMessage());
        assertEquals(DepotException.Reason.NOT_FOUND, assertThrows(DepotException.class,
                () -> DepotTree.link(depot, DepotPath.parse("share/doc"), DepotPath.parse("nope/x"))).reason());
        assertThrows(DepotException.class, () -> DepotPath.parse("share/../etc"));
        assertThrows(DepotException.class, () -> DepotPath.parse("/"));
    }

    @Test
    void verifyFindsCorruptObjectsAndManifests() throws Exception {
        assertTrue(Verifier.verify(depot, 2, n -> { }, n -> { }).problems().isEmpty());
        Hash readme = DepotTree.resolve(depot, DepotPath.parse("share/doc/README")).entry().requireHash();
        depot.corruptForTesting(readme, "README".getBytes(StandardCharsets.UTF_8));
        Verifier.Report r = Verifier.verify(depot, 2, n -> { }, n -> { });
        assertEquals(1, r.problems().size());
        assertEquals("share/doc/README", r.problems().get(0).path());
        assertTrue(r.problems().get(0).message().startsWith("corrupt object " + readme.shortHex()), r.problems().get(0).message());
    }

    /** A damaged object or manifest reachable by several paths (a linked bundle) is reported once, with every path. */
    @Test
    void verifyNamesEveryPathOfADamagedItem() throws Exception {
        DepotTree.link(depot, DepotPath.parse("share/doc"), DepotPath.parse("share/man/doc-again"));
        DepotTree.link(depot, DepotPath.parse("share/doc"), DepotPath.parse("docs"));
        Hash readme = DepotTree.resolve(depot, DepotPath.parse("share/doc/README")).entry().requireHash();
        depot.corruptForTesting(readme, "README".getBytes(StandardCharsets.UTF_8));
        Verifier.Report r = Verifier.verify(depot, 2, n -> { }, n -> { });
        assertEquals(1, r.problems().size(), r.problems().toString());
        Verifier.Problem p = r.problems().get(0);
        assertEquals(List.of("docs/README", "share/doc/README", "share/man/doc-again/README"), p.paths());
        assertEquals("docs/README, share/doc/README, share/man/doc-again/README", p.where());

        // The same object under more names than a line lists: the first ones, then how many more
        List<BundleEntry> many = new java.util.ArrayList<>();
        for (int i = 0; i < Verifier.MAX_PATHS + 3; i++) {
            many.add(BundleEntry.object("copy-" + (char) ('a' + i), readme, 6, 1, false));
        }
        depot.setRoot("many", null, depot.putBundle(many).hash());
        Verifier.Problem wide = Verifier.verify(depot, 2, n -> { }, n -> { }).problems().get(0);
        assertEquals(Verifier.MAX_PATHS, wide.paths().size());
        assertEquals(6, wide.morePaths(), "13 copies + 3 paths above, 10 listed");
        assertTrue(wide.where().endsWith(" (and 6 more paths)"), wide.where());

        // A name with a newline is printed on the problem's one line, escaped as import prints it
        Hash oddObject = depot.putObject("odd!".getBytes(StandardCharsets.UTF_8)).hash();
        depot.corruptForTesting(oddObject, "bad!".getBytes(StandardCharsets.UTF_8));
        depot.setRoot("odd", null, depot.putBundle(List.of(BundleEntry.object("new\nline", oddObject, 4, 1, false))).hash());
        Verifier.Problem odd = Verifier.verify(depot, 2, n -> { }, n -> { }).problems().stream()
                .filter(q -> q.paths().get(0).startsWith("odd/")).findFirst().orElseThrow();
        assertTrue(odd.where().contains("odd/new\\x0aline") && !odd.where().contains("\n"), odd.where());
    }

    /**
     * A name over 255 bytes is listed by a mount in its short form (the kit's {@code NameShortener}); that path,
     * copied from the mount, names the same entry for {@code ls} and {@code link}, and a cycle written with it is
     * refused as one written with the real name.
     */
    @Test
    void aPathWithAMountsShortFormNamesTheLongNamedEntry() throws Exception {
        String longName = "L".repeat(300) + ".d";
        String shortForm = io.github.purefuse.kit.names.NameShortener.standard().shorten(longName);
        WritableDepot.Stored inner = depot.putBundle(List.of());
        WritableDepot.Stored outer = depot.putBundle(List.of(BundleEntry.bundle(longName, inner.hash(), inner.size(), 4)));
        depot.setRoot("long", null, outer.hash());

        DepotTree.Resolved r = DepotTree.resolve(depot, DepotPath.parse("long/" + shortForm));
        assertEquals(longName, r.entry().name());
        assertEquals(List.of(longName), r.path().names(), "the real name");
        assertEquals(DepotException.Reason.NOT_FOUND, assertThrows(DepotException.class,
                () -> DepotTree.resolve(depot, DepotPath.parse("long/" + shortForm.replace("~", "~a")))).reason());

        DepotTree.link(depot, DepotPath.parse("share/doc"), DepotPath.parse("long/" + shortForm + "/doc"));
        assertEquals(docHash, DepotTree.resolve(depot, DepotPath.parse("long/" + shortForm + "/doc")).bundleHash().orElseThrow());
        assertEquals(docHash, DepotTree.resolve(depot, DepotPath.parse("long/" + longName + "/doc")).bundleHash().orElseThrow());
        assertEquals(1, depot.bundle(depot.root("long").orElseThrow()).entries().size(), "no entry named like the short form");

        Hash before = depot.root("long").orElseThrow();
        for (String[] pair : List.of(new String[] {shortForm, longName}, new String[] {longName, shortForm})) {
            DepotException cycle = assertThrows(DepotException.class,
                    () -> DepotTree.link(depot, DepotPath.parse("long/" + pair[0]), DepotPath.parse("long/" + pair[1] + "/again")));
            assertTrue(cycle.getMessage().contains("cycle"), cycle.getMessage());
        }
        assertEquals(before, depot.root("long").orElseThrow(), "nothing changed");
    }
    /**
     * A new path whose last name is the short form a mount lists an existing long-named entry under names that entry:
     * link refuses it as existing, as it does its real name. Stored beside it, a real entry of that name took the
     * short form over on every mount, and the long-named entry was listed under another one.
     */
    @Test
    void aNewPathNamedByAnExistingEntrysShortFormExistsAlready() throws Exception {
        String longName = "L".repeat(300) + ".d";
        String shortForm = io.github.purefuse.kit.names.NameShortener.standard().shorten(longName);
        WritableDepot.Stored inner = depot.putBundle(List.of());
        WritableDepot.Stored outer = depot.putBundle(List.of(BundleEntry.bundle(longName, inner.hash(), inner.size(), 4)));
        depot.setRoot("long", null, outer.hash());
        Hash before = depot.root("long").orElseThrow();
        for (String name : List.of(longName, shortForm)) {
            DepotException e = assertThrows(DepotException.class,
                    () -> DepotTree.link(depot, DepotPath.parse("share/doc"), DepotPath.parse("long/" + name)));
            assertTrue(e.getMessage().contains("exists already"), e.getMessage());
        }
        assertEquals(before, depot.root("long").orElseThrow(), "nothing changed");
    }
}
