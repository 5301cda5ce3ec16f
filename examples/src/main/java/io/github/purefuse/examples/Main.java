package io.github.purefuse.examples;

import io.github.purefuse.examples.hello.HelloCommand;
import io.github.purefuse.examples.json.JsonCommand;
import io.github.purefuse.examples.mirror.MirrorCommand;
import io.github.purefuse.examples.zip.ZipCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The examples' command line: {@code fuse-example SUBCOMMAND [OPTIONS] MOUNTPOINT}. Each example is one
 * subcommand class listed in {@code subcommands} below; adding an example means adding its class there.
 *
 * <p>Every subcommand mounts in the foreground and returns when the filesystem is unmounted. Exit
 * codes: 0 after a clean unmount, from outside ({@code umount}, {@code fusermount3 -u}) or on SIGTERM,
 * SIGINT (Ctrl-C) or SIGHUP, which unmount first ({@link io.github.purefuse.channel.MountOptions#handleSignals()},
 * as libfuse servers do); 1 when mounting fails (a mount point that is not empty needs
 * {@code --nonempty}); 2 for bad arguments.
 */
@Command(name = "fuse-example", mixinStandardHelpOptions = true,
        description = "Mounts one of the purefuse example filesystems (read-only) until it is unmounted.",
        subcommands = {HelloCommand.class, MirrorCommand.class, ZipCommand.class, JsonCommand.class, CommandLine.HelpCommand.class})
public final class Main implements Runnable {
    private Main() {
    }

    @Override
    public void run() {
        throw new CommandLine.ParameterException(new CommandLine(this), "Missing subcommand");
    }

    /**
     * Runs the command line and exits with its status.
     *
     * @param args the arguments
     */
    public static void main(String[] args) {
        oneLineLogs();
        System.exit(commandLine().execute(args));
    }

    /**
     * One line per log record, {@code fuse-example: LEVEL: message} (the JDK's default format takes two
     * lines); the stack trace only with {@code FUSE_EXAMPLE_DEBUG} set. Call before the first log record;
     * a format given with {@code -Djava.util.logging.SimpleFormatter.format} wins.
     */
    static void oneLineLogs() {
        if (System.getProperty("java.util.logging.SimpleFormatter.format") == null) {
            System.setProperty("java.util.logging.SimpleFormatter.format",
                    System.getenv("FUSE_EXAMPLE_DEBUG") != null ? "fuse-example: %4$s: %5$s%6$s%n" : "fuse-example: %4$s: %5$s%n");
        }
    }

    /** {@return the configured command line (for tests)} */
    public static CommandLine commandLine() {
        CommandLine cl = new CommandLine(new Main());
        String v = Main.class.getPackage().getImplementationVersion();
        versionEverywhere(cl, "fuse-example " + (v != null ? v : "(classes, not a jar: no version)"));
        cl.setUsageHelpAutoWidth(true);   // help wraps at the terminal's width (80 when not a terminal)
        // An empty path argument would be the working directory (an unset variable in a script): a usage error
        cl.registerConverter(java.nio.file.Path.class, value -> {
            if (value.isEmpty()) {
                throw new CommandLine.TypeConversionException("an empty path: name a file or directory");
            }
            return java.nio.file.Path.of(value);
        });
        // A value the mount options refuse (--readers 0, --readahead-kb -5) is a bad argument: one line and
        // exit 2, not a stack trace.
        cl.setExecutionExceptionHandler((e, line, parsed) -> {
            if (e instanceof IllegalArgumentException) {
                line.getErr().println("fuse-example: " + e.getMessage());
                line.getErr().flush();
                return 2;
            }
            throw e;
        });
        return cl;
    }

    /** {@code -V} prints the version on every subcommand too (picocli gives a subcommand none of its own). */
    private static void versionEverywhere(CommandLine command, String version) {
        command.getCommandSpec().version(version);
        command.getSubcommands().values().forEach(sub -> versionEverywhere(sub, version));
    }
}
