package io.github.purefuse.channel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Set;
import java.util.TreeSet;
import java.util.spi.ToolProvider;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * jnr-ffi and jffi are automatic modules: they cannot say which explicit modules they need (the JDK's, ASM), so
 * on the module path the channel's {@code module-info} has to. One that no explicit module of the application
 * requires is not resolved: a runtime that {@code jlink} made from the application's module graph
 * ({@code java --limit-modules APP --list-modules}) lacked {@code java.logging}, and a mount there failed late,
 * inside jnr-ffi, with {@code NoClassDefFoundError: java/util/logging/Logger}; and without
 * {@code --add-modules org.objectweb.asm} (which Surefire's fork refuses: it puts ASM on the class path) with
 * {@code NoClassDefFoundError: org/objectweb/asm/ClassVisitor}.
 */
class ModuleDescriptorTest {
    @Test
    void requiresEveryExplicitModuleItsAutomaticModuleDependenciesUse() throws Exception {
        ModuleDescriptor channel;
        Path classes = Path.of(FuseSession.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        try (InputStream in = Files.newInputStream(classes.resolve("module-info.class"))) {
            channel = ModuleDescriptor.read(in);
        }
        Set<String> required = channel.requires().stream().map(ModuleDescriptor.Requires::name).collect(Collectors.toSet());
        ToolProvider jdeps = ToolProvider.findFirst("jdeps").orElseThrow();
        // jnr-ffi and what its pom brings (jffi, its assemblers, ASM), from the jars the tests run with (Surefire's
        // fork has a manifest-only jar as its java.class.path); the test scope's own (Jazzer, ...) stay out.
        String modulePath = Arrays.stream(System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"))
                .split(File.pathSeparator)).filter(p -> p.endsWith(".jar") && (p.contains("/com/github/jnr/") || p.contains("/org/ow2/asm/")))
                .collect(Collectors.joining(File.pathSeparator));
        for (Class<?> c : new Class<?>[] {jnr.ffi.LibraryLoader.class, com.kenai.jffi.Library.class}) {
            Path jar = Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI());
            StringWriter out = new StringWriter();
            int rc = jdeps.run(new PrintWriter(out), new PrintWriter(out), "--ignore-missing-deps", "--print-module-deps",
                    "--module-path", modulePath, jar.toString());
            assertEquals(0, rc, "jdeps " + jar + ":\n" + out);
            Set<String> explicit = new TreeSet<>();
            for (String name : out.toString().strip().split(",")) {
                var found = ModuleFinder.ofSystem().find(name)
                        .or(() -> ModuleFinder.of(Arrays.stream(modulePath.split(File.pathSeparator)).map(Path::of)
                                .toArray(Path[]::new)).find(name));
                // An automatic one (jffi, jnr's assemblers) is resolved with any other: all of them are
                if (found.isPresent() && !found.get().descriptor().isAutomatic() && !name.equals("java.base")) {
                    explicit.add(name);
                }
            }
            assertTrue(explicit.contains("java.logging"), "jdeps saw " + jar.getFileName() + "'s dependencies: " + out);
            Set<String> missing = new TreeSet<>(explicit);
            missing.removeAll(required);
            assertTrue(missing.isEmpty(), channel.name() + " does not require " + missing + ", which " + jar.getFileName()
                    + " (an automatic module) uses");
        }
    }
}
