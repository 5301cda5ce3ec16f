package io.github.purefuse.depotfs.cli;

import java.nio.file.Path;
import picocli.CommandLine;

/**
 * A MOUNTPOINT argument: any path but the empty one, which {@code Path.of} takes for the working directory
 * (an unset {@code $MNT} in a script would otherwise mount over, or unmount, the directory it runs in).
 */
final class MountpointConverter implements CommandLine.ITypeConverter<Path> {
    @Override
    public Path convert(String value) {
        if (value.isEmpty()) {
            throw new CommandLine.TypeConversionException("the mount point is an empty string: name a directory");
        }
        return Path.of(value);
    }
}
