package io.github.purefuse.api.reply;

import io.github.purefuse.api.types.LocalFile;
import java.util.Objects;

/**
 * File data for a READ taken straight from a local file: {@code length} bytes of {@code file} from
 * {@code offset}. The transport sends them without a Java buffer where it can: on {@code /dev/fuse} with
 * {@code splice(2)} (the file's pages go through a pipe into the kernel's reply: one copy instead of the
 * two of {@code pread} + {@code writev}); a transport that cannot splice (io_uring) reads them straight
 * into its reply buffer. Bytes that are not in the page cache are read without holding up the transport's
 * thread (a file-read thread on {@code /dev/fuse}, an {@code IORING_OP_READ} on io_uring), so a READ
 * that waits for the disk does not delay the requests behind it.
 *
 * <p>Fewer bytes than {@code length}, when the file is shorter than {@code offset + length}, tell the
 * kernel the file ends there, as with {@link Data}, unless the file was opened with an
 * {@linkplain LocalFile#expectedSize() expected size} that it no longer holds: that READ is answered EIO.
 * {@code length} must not exceed the READ's size.
 *
 * @param file   the local file; borrowed until the reply was sent (the handler keeps it open)
 * @param offset the file offset of the first byte, at least 0
 * @param length the bytes to send, at least 0
 * @fuse.ownership nothing is transferred: the SDK reads the file while sending, holding its descriptor
 *     open until then (a {@code close()} meanwhile takes effect after the read)
 */
public record FileRange(LocalFile file, long offset, int length) implements ReadReply {
    /** Checks for null and negative values. */
    public FileRange {
        Objects.requireNonNull(file, "file");
        if (offset < 0 || length < 0) {
            throw new IllegalArgumentException("offset and length must not be negative: " + offset + ", " + length);
        }
    }
}
