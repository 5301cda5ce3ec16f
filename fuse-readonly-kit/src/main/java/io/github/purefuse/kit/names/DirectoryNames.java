package io.github.purefuse.kit.names;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The display names of one directory: each real name that is valid is shown as it is, each other one
 * under a short form that differs from every real name and every other short form of the directory.
 *
 * <p>Collisions are resolved deterministically, whatever the order of the list: the invalid names are
 * taken in the unsigned order of their bytes; each gets the first of its forms with a 20, 26, 32, 40
 * and 52 character hash that no valid real name and no earlier short form holds, and, should all five be
 * taken (only possible when real names were chosen to collide), the 52-character form followed by
 * {@code -1}, {@code -2}, ... So a directory with the same names lists the same display names in every
 * run. Only the shortened names are kept: the memory is proportional to their number. Immutable and
 * thread-safe.
 */
public final class DirectoryNames {

    private final NameShortener shortener;
    private final Map<String, String> displayByReal;
    private final Map<String, String> realByDisplay;

    private DirectoryNames(NameShortener shortener, Map<String, String> displayByReal, Map<String, String> realByDisplay) {
        this.shortener = shortener;
        this.displayByReal = displayByReal;
        this.realByDisplay = realByDisplay;
    }

    static DirectoryNames build(NameShortener shortener, Collection<String> realNames) {
        List<String> invalid = new ArrayList<>();
        for (String name : realNames) {
            if (!shortener.isValid(name)) {
                invalid.add(name);
            }
        }
        if (invalid.isEmpty()) {
            return new DirectoryNames(shortener, Map.of(), Map.of());   // the common case: no set of names built
        }
        Set<String> taken = new HashSet<>();
        for (String name : realNames) {
            if (shortener.isValid(name)) {
                taken.add(name);
            }
        }
        invalid.sort(NameShortener::compareBytes);
        Map<String, String> displayByReal = new HashMap<>();
        Map<String, String> realByDisplay = new HashMap<>();
        String previous = null;
        for (String name : invalid) {
            if (name.equals(previous)) {
                continue;
            }
            previous = name;
            String display = null;
            for (int level = 0; level < NameShortener.HASH_LENGTHS.length && display == null; level++) {
                String candidate = shortener.shortForm(name, level, 0);
                if (!taken.contains(candidate)) {
                    display = candidate;
                }
            }
            for (int counter = 1; display == null; counter++) {
                String candidate = shortener.shortForm(name, NameShortener.HASH_LENGTHS.length - 1, counter);
                if (!taken.contains(candidate)) {
                    display = candidate;
                }
            }
            taken.add(display);
            displayByReal.put(name, display);
            realByDisplay.put(display, name);
        }
        return new DirectoryNames(shortener, displayByReal, realByDisplay);
    }

    /**
     * The name under which a real name is listed.
     *
     * @param realName a real name of this directory
     * @return the name itself if it is valid, else its short form; for an invalid name that was not in
     *     the directory's list, its short form as if nothing collided
     */
    public String displayName(String realName) {
        String d = displayByReal.get(realName);
        if (d != null) {
            return d;
        }
        return shortener.shorten(realName);
    }

    /**
     * Maps a name the kernel looks up back to the real name.
     *
     * @param displayName a name from LOOKUP
     * @return the real name it stands for: the real name of a short form of this directory; the name
     *     itself if it is a valid name and no short form (the caller then checks that it exists); or
     *     {@code null} when no real name can be listed under it (an invalid name: it would only be
     *     reachable under its short form)
     */
    public @Nullable String realName(String displayName) {
        String r = realByDisplay.get(displayName);
        if (r != null) {
            return r;
        }
        return shortener.isValid(displayName) ? displayName : null;
    }

    /** {@return the number of names of this directory that are listed under a short form} */
    public int shortenedCount() {
        return displayByReal.size();
    }

    /** {@return the shortener that made these names} */
    public NameShortener shortener() {
        return shortener;
    }
}
