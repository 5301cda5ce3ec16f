package io.github.purefuse.examples.cli;

import io.github.purefuse.channel.MountOptions;
import io.github.purefuse.channel.Transport;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** Parses {@code --transport auto|dev|io-uring} with {@link MountOptions#parseTransport}. */
public final class TransportOption implements ITypeConverter<Transport> {
    /** Creates the converter (picocli instantiates it). */
    public TransportOption() {
    }

    @Override
    public Transport convert(String value) {
        try {
            return MountOptions.parseTransport(value);
        } catch (IllegalArgumentException e) {
            throw new TypeConversionException(e.getMessage());
        }
    }
}
