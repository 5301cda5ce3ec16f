package io.github.purefuse.bench.kit;

import io.github.purefuse.kit.names.DirectoryNames;
import io.github.purefuse.kit.names.NameShortener;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Name shortening: the fast path every listed name takes (a valid name of 20 bytes is shown as is), a
 * 7,000-byte name (the depot's maximum) shortened to its short form, building the display names of a
 * directory of 100 names, and mapping a display name back on LOOKUP.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(1)
public class NameShortenerBench {

    private NameShortener shortener = NameShortener.standard();
    private String shortName = "";
    private String longName = "";
    private List<String> directory = List.of();
    private DirectoryNames names = NameShortener.standard().directory(List.of());
    private String[] display = new String[0];
    private int i;

    @Setup(Level.Trial)
    public void setUp() {
        shortener = NameShortener.standard();
        shortName = "file-000123-data.txt";
        longName = "very-long-name-".repeat(466) + "end.tar.gz";
        List<String> dir = new ArrayList<>();
        for (int k = 0; k < 100; k++) {
            dir.add(k % 10 == 0 ? "long-" + k + "-" + "x".repeat(300) + ".txt" : "file-" + k + ".txt");
        }
        directory = dir;
        names = shortener.directory(directory);
        display = directory.stream().map(names::displayName).toArray(String[]::new);
    }

    /** A valid short name: checked and shown as is. */
    @Benchmark
    public String shortenValid() {
        return shortener.shorten(shortName);
    }

    /** A 7,000-byte name: prefix, hash, extension. */
    @Benchmark
    public String shortenLong() {
        return shortener.shorten(longName);
    }

    /** Display names of a directory of 100 names (10 of them too long), as at OPENDIR. */
    @Benchmark
    public DirectoryNames directoryOf100() {
        return shortener.directory(directory);
    }

    /** LOOKUP: a display name back to the real name. */
    @Benchmark
    public String realNameOfDisplay() {
        String d = display[i++ % display.length];
        String r = names.realName(d);
        return r == null ? "" : r;
    }
}
