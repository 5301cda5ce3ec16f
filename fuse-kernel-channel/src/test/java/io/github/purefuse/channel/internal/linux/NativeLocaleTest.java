package io.github.purefuse.channel.internal.linux;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The native layer loads under every locale. jffi 1.3.13 names its stub library with a locale-dependent
 * {@code String.format}: under a locale that writes digits in another script it looked for {@code libjffi-١.٢.so},
 * and every mount of depotfs and the examples failed with an UnsatisfiedLinkError (jnr/jffi#170). Each locale runs
 * in a JVM of its own, since the stub library loads once per JVM.
 */
class NativeLocaleTest {

    /** Loads the native layer and prints the effective uid. */
    public static final class Main {
        public static void main(String[] args) {
            System.out.println("euid " + Native.geteuid());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"fa-IR", "ar-EG", "bn-BD", "mr-IN", "en-US"})
    void theNativeLayerLoadsUnderTheLocale(String tag) throws IOException, InterruptedException {
        String[] lc = tag.split("-");
        Process p = new ProcessBuilder(List.of(ProcessHandle.current().info().command().orElse("java"),
                "-Duser.language=" + lc[0], "-Duser.country=" + lc[1], "--enable-native-access=ALL-UNNAMED",
                "-cp", System.getProperty("java.class.path"), Main.class.getName())).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        p.waitFor(60, TimeUnit.SECONDS);
        assertEquals(0, p.exitValue(), out);
        assertEquals("euid " + Native.geteuid(), out.lines().filter(l -> l.startsWith("euid ")).findFirst().orElse(out));
    }
}
