package io.github.purefuse.kit.names;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Names with unpaired surrogates (a byte that is not UTF-8, escaped by {@code FileNames}, or a lone surrogate of
 * a Java string): their identity bytes, hence hashes and display names, are distinct and independent of order.
 * Both tests failed before the fix, from a review of the kit.
 */
class NameShortenerIdentityTest {

    /**
     * The class description says another unpaired surrogate is encoded as WTF-8 "so different strings always
     * hash differently"; but a lone U+D800 gives ED A0 80, the very bytes of the three escaped bytes
     * U+DCED U+DCA0 U+DC80.
     */
    @Test
    void differentStringsHaveDifferentBytes() {
        assertFalse(Arrays.equals(NameShortener.identityBytes("\ud800"), NameShortener.identityBytes("\udced\udca0\udc80")),
                "a lone U+D800 and the escaped bytes ED A0 80 give the same bytes, so the same hash");
    }

    /**
     * DirectoryNames promises the same display names "whatever the order of the list": two long names that
     * differ only in their tail (beyond the prefix) and whose bytes are equal (previous test) sort as equal,
     * so the one that keeps the plain short form is the one listed first.
     */
    @Test
    void displayNamesDoNotDependOnTheOrderOfTheList() {
        String stem = "x".repeat(300);
        String a = stem + "\ud800";
        String b = stem + "\udced\udca0\udc80";
        NameShortener s = NameShortener.standard();
        DirectoryNames ab = s.directory(List.of(a, b));
        DirectoryNames ba = s.directory(List.of(b, a));
        assertEquals(ab.displayName(a), ba.displayName(a), "the display name of a depends on the order of the list");
    }
}
