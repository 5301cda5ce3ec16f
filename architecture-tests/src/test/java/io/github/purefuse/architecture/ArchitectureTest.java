package io.github.purefuse.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaPackage;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;
import io.github.purefuse.api.request.FuseRequest;
import io.github.purefuse.channel.internal.request.ChannelRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.jspecify.annotations.NullMarked;

/**
 * The module directions and the house rules, checked on the production classes of every module.
 * The directions: {@code fuse-api} depends on the JDK and JSpecify only; {@code fuse-kernel-channel} and
 * {@code fuse-readonly-kit} know only {@code fuse-api} (not each other); the test kit {@code fuse-testing}
 * mounts through the channel; applications ({@code examples}, {@code depotfs}) and the benchmarks sit on
 * top and use only public API. The README's "Modules" section describes the same.
 */
@AnalyzeClasses(packages = "io.github.purefuse", importOptions = ImportOption.DoNotIncludeTests.class)
class ArchitectureTest {

    @ArchTest
    static final ArchRule apiIsSelfContained = classes()
            .that().resideInAPackage("io.github.purefuse.api..")
            .should().onlyDependOnClassesThat()
            .resideInAnyPackage("io.github.purefuse.api..", "java..", "org.jspecify.annotations..")
            .because("fuse-api is the stable surface: no Netty, jnr-ffi or SDK internals in its signatures");

    @ArchTest
    static final ArchRule layers = layeredArchitecture().consideringOnlyDependenciesInLayers()
            .layer("API").definedBy("io.github.purefuse.api..")
            .layer("Channel").definedBy("io.github.purefuse.channel..")
            .layer("Kit").definedBy("io.github.purefuse.kit..")
            .layer("Testing").definedBy("io.github.purefuse.testing..")
            .layer("Apps").definedBy("io.github.purefuse.examples..", "io.github.purefuse.depotfs..")
            .layer("Bench").definedBy("io.github.purefuse.bench..")
            .whereLayer("Apps").mayOnlyBeAccessedByLayers("Bench")
            .whereLayer("Channel").mayOnlyBeAccessedByLayers("Testing", "Apps", "Bench")
            .whereLayer("Testing").mayNotBeAccessedByAnyLayer()
            .whereLayer("Kit").mayOnlyBeAccessedByLayers("Apps", "Bench")
            .withOptionalLayers(true)
            .because("the channel and the kit know only fuse-api; the test kit mounts through the channel; applications sit on top");

    @ArchTest
    static final ArchRule nativeCallsStayInOnePackage = noClasses()
            .that().resideOutsideOfPackage("io.github.purefuse.channel.internal.linux..")
            .should().dependOnClassesThat().resideInAPackage("jnr..")
            .because("every native call goes through one package, where errno is read right after the call");

    @ArchTest
    static final ArchRule nettyStaysBehindTheLease = noClasses()
            .that().resideOutsideOfPackages("io.github.purefuse.kit.buffer..", "io.github.purefuse.channel.internal..",
                    "io.github.purefuse.bench..")
            .should().dependOnClassesThat().resideInAPackage("io.netty..")
            .because("Netty is an implementation detail behind the BufferLease type");

    @ArchTest
    static final ArchRule applicationsUseOnlyPublicApi = noClasses()
            .that().resideInAnyPackage("io.github.purefuse.examples..", "io.github.purefuse.depotfs..",
                    "io.github.purefuse.kit..", "io.github.purefuse.testing..")
            .should().dependOnClassesThat().resideInAPackage("io.github.purefuse.channel.internal..")
            .because("the channel's public surface is io.github.purefuse.channel only");

    @ArchTest
    static final ArchRule requestsAreRecords = classes()
            .that().implement(FuseRequest.class).or().implement(ChannelRequest.class).and().areNotInterfaces()
            .should().beRecords()
            .because("requests are immutable values that hold no pooled memory");

    @ArchTest
    static final ArchRule noPackageCycles = slices().matching("io.github.purefuse.(**)").should().beFreeOfCycles();

    @ArchTest
    static final ArchRule libraryCodeDoesNotPrint = noClasses()
            .that().resideInAnyPackage("io.github.purefuse.api..", "io.github.purefuse.channel..",
                    "io.github.purefuse.kit..")
            .and().resideOutsideOfPackage("io.github.purefuse.channel.internal.tools..")
            .and().doNotHaveFullyQualifiedName("io.github.purefuse.channel.internal.linux.ShutdownStderr")
            .should().accessField(System.class, "out").orShould().accessField(System.class, "err")
            .because("libraries log through System.Logger; only command-line tools print, and ShutdownStderr"
                    + " for a session closed by the JVM shutdown hook, where logging has shut down");

    @ArchTest
    static final ArchRule noJavaUtilLogging = noClasses()
            .that().resideOutsideOfPackage("io.github.purefuse.depotfs.cli..")
            .should().dependOnClassesThat().resideInAPackage("java.util.logging..")
            .because("we log through System.Logger, which users can route to any backend; the depotfs command"
                    + " alone, an application, configures the backend it runs with (its console handler follows"
                    + " --log, MessageLog)");

    @ArchTest
    static void everyPackageIsNullMarked(JavaClasses classes) {
        Set<String> packages = new TreeSet<>();
        for (JavaClass c : classes) {
            packages.add(c.getPackageName());
        }
        List<String> unmarked = new ArrayList<>();
        for (String name : packages) {
            JavaPackage p = classes.getPackage(name);
            if (!name.contains("jmh_generated") && !p.isAnnotatedWith(NullMarked.class)) {
                unmarked.add(name);
            }
        }
        assertTrue(packages.size() >= 3, "expected to analyse the SDK's packages, found " + packages);
        assertTrue(unmarked.isEmpty(), "packages without @NullMarked in package-info.java: " + unmarked);
    }
}
