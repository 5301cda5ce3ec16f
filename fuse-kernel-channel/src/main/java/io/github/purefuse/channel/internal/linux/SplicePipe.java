package io.github.purefuse.channel.internal.linux;

import io.github.purefuse.api.types.Errno;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * A pipe that carries one READ reply from a local file to {@code /dev/fuse} with {@code splice(2)}, the
 * way libfuse's {@code fuse_send_data_iov} does: {@code vmsplice} the 16-byte {@code fuse_out_header}
 * into the pipe, {@code splice} the file's bytes after it (the pipe then holds references to the file's
 * page-cache pages, no copy), then {@code splice} the whole message from the pipe into the device in one
 * call ({@code fuse_dev_splice_write} needs the whole message in the pipe; it copies the pages into the
 * READ's pages: the one copy of the data). {@code pread} + {@code writev} copy twice.
 *
 * <p>{@code vmsplice} maps the header's memory by reference, so when the file turns out shorter the
 * header's {@code len} is corrected in place before the last splice (as libfuse does). No
 * {@code SPLICE_F_MOVE}: on 6.18 {@code fuse_dev_splice_write} still honours it
 * ({@code cs->move_folios}: {@code fuse_try_move_folio} steals whole, unmapped page-cache folios for
 * readahead replies), which would take the pages out of the source file's cache.
 *
 * <p>One thread at a time; after any failure the pipe may hold stale bytes, so the owner closes it and
 * opens a new one ({@link #broken()}).
 */
public final class SplicePipe implements AutoCloseable {
    private static final int PAGE = Native.PAGE_SIZE;   // a pipe slot holds a page
    private static final int OUT_HEADER = 16;
    private static final int SPLICE_F_NONBLOCK = 2;
    private static final int EINTR = Errno.EINTR.code();
    private static final int EAGAIN = Errno.EAGAIN.code();

    private final int readFd;
    private final int writeFd;
    private final int capacity;
    private final ByteBuffer cells = ByteBuffer.allocateDirect(32).order(ByteOrder.nativeOrder());
    private final long cellsAddress;
    private final jnr.ffi.Pointer offsetCell;
    private boolean broken;

    private SplicePipe(int readFd, int writeFd, int capacity) {
        this.readFd = readFd;
        this.writeFd = writeFd;
        this.capacity = capacity;
        this.cellsAddress = Native.address(cells);
        this.offsetCell = Native.pointer(cellsAddress + 16);
    }

    /**
     * Opens a pipe and asks for room for a reply of {@code maxData} bytes (the pipe needs one slot for the
     * header and one per page of data, plus one when the data does not start on a page boundary).
     *
     * @param maxData the largest READ reply wanted ({@code max_pages * 4096})
     * @return the pipe; its {@link #fits} may be smaller than asked when the process may not grow pipes
     *     beyond {@code /proc/sys/fs/pipe-max-size}
     * @throws ErrnoException if no pipe can be made
     */
    public static SplicePipe open(int maxData) throws ErrnoException {
        int[] fds = Native.pipe();
        int want = Integer.highestOneBit(Math.max(PAGE, maxData + 2 * PAGE) - 1) << 1;
        int cap;
        try {
            cap = Native.setPipeSize(fds[1], want);
        } catch (ErrnoException e) {
            try {
                cap = Native.setPipeSize(fds[1], 1 << 20);
            } catch (ErrnoException e2) {
                cap = Native.pipeSize(fds[1]);
            }
        }
        return new SplicePipe(fds[0], fds[1], cap);
    }

    /**
     * The most whole pages of file data a reply spliced through a pipe of this process can carry: the
     * pipe's slots (pages) less one for the header. A pipe grows beyond
     * {@code /proc/sys/fs/pipe-max-size} (1 MiB by default) only with {@code CAP_SYS_RESOURCE}, so without
     * it this is 255, one page short of a 1 MiB READ ({@code max_pages} 256), which would then be copied.
     *
     * @param maxData the largest READ reply wanted, in bytes
     * @return the pages, or 0 if no pipe could be made (replies are copied then anyway)
     */
    public static int replyPages(int maxData) {
        try (SplicePipe p = open(maxData)) {
            return Math.max(0, p.capacity / PAGE - 1);
        } catch (ErrnoException e) {
            return 0;
        }
    }

    /**
     * Whether a reply of {@code length} bytes from file offset {@code offset} fits this pipe.
     *
     * @param offset the file offset
     * @param length the bytes
     * @return whether {@link #reply} can carry it
     */
    public boolean fits(long offset, int length) {
        long pages = ((offset & (PAGE - 1)) + length + PAGE - 1) / PAGE;
        return (pages + 1) * PAGE <= capacity;
    }

    /** {@return whether a failure left the pipe unusable (close it and open another)} */
    public boolean broken() {
        return broken;
    }

    /**
     * Sends one READ reply: the header at {@code header[position, position + 16)} (its {@code len} is
     * written here), then up to {@code length} bytes of {@code fileFd} from {@code offset}.
     *
     * @param devFd  the {@code /dev/fuse} descriptor the request came from
     * @param header a direct buffer with the out-header ({@code unique}, {@code error = 0}); must stay
     *               unchanged until this returns
     * @param fileFd the file
     * @param offset the file offset
     * @param length the bytes wanted; must {@link #fits fit}
     * @param needed the bytes the file must give, at most {@code length}: when it ends before them,
     *               nothing reaches the device and {@link FileEndsEarly} is thrown
     * @return the data bytes sent (fewer than {@code length} at the end of the file)
     * @throws ErrnoException from the device splice (ENOENT: interrupted; the pipe is broken): the
     *     kernel's verdict on the reply
     * @throws FileReadFailed if the header could not be put in the pipe, reading the file failed, or it
     *     ended before {@code needed} bytes: nothing reached the device, the caller must still answer (the
     *     pipe is broken)
     */
    public int reply(int devFd, ByteBuffer header, int fileFd, long offset, int length, int needed)
            throws ErrnoException, FileReadFailed {
        int h = header.position();
        header.putInt(h, OUT_HEADER + length);
        cells.putLong(0, Native.address(header));
        cells.putLong(8, OUT_HEADER);
        cells.putLong(16, offset);
        broken = true; // until the whole message went through
        long h0;
        try {
            h0 = Native.vmsplice(writeFd, cellsAddress, 1);
        } catch (ErrnoException e) {
            throw new FileReadFailed(e); // nothing reached the device: the caller still answers
        }
        if (h0 != OUT_HEADER) {
            throw new FileReadFailed(new ErrnoException("vmsplice (short: " + h0 + ")", Errno.EIO.code()));
        }
        int total = 0;
        while (total < length) {
            long n;
            try {
                n = Native.splice(fileFd, offsetCell, writeFd, length - total, SPLICE_F_NONBLOCK);
            } catch (ErrnoException e) {
                if (e.errno() == EINTR) {
                    continue;
                }
                if (e.errno() == EAGAIN) {
                    // The pipe is full (SPLICE_F_NONBLOCK checks that before it reads the file). fits()
                    // left a slot for every page the range touches, and the file's splice fills whole pages
                    // but at the range's ends, so a full pipe short of length means the last page was the
                    // file's partial last one: its end, as n == 0 would have said had there been room.
                    break;
                }
                throw new FileReadFailed(e);
            }
            if (n == 0) {
                break; // end of file
            }
            total += (int) n;
        }
        if (total < needed) {
            throw new FileEndsEarly(total);
        }
        if (total != length) {
            header.putInt(h, OUT_HEADER + total); // the pipe maps this memory: the kernel reads the new len
        }
        long sent = Native.splice(readFd, null, devFd, OUT_HEADER + total, 0);
        if (sent != OUT_HEADER + total) {
            throw new ErrnoException("splice to /dev/fuse (short: " + sent + ")", Errno.EIO.code());
        }
        broken = false;
        return total;
    }

    /** Filling the pipe (the header, or the file's bytes) failed: the device was not written. */
    public static class FileReadFailed extends Exception {
        private static final long serialVersionUID = 1L;

        /**
         * Creates one.
         *
         * @param cause the failed call
         */
        public FileReadFailed(ErrnoException cause) {
            super(cause.getMessage(), cause);
        }

        /** {@return the errno of the failed splice from the file} */
        public int errno() {
            return ((ErrnoException) getCause()).errno();
        }
    }

    /** The file ended before the bytes it had to give (EIO): the device was not written. */
    public static final class FileEndsEarly extends FileReadFailed {
        private static final long serialVersionUID = 1L;
        private final int got;

        FileEndsEarly(int got) {
            super(new ErrnoException("splice: the file ends after " + got + " bytes", Errno.EIO.code()));
            this.got = got;
        }

        /** {@return the data bytes the file gave} */
        public int got() {
            return got;
        }
    }

    @Override
    public void close() {
        Native.close(readFd);
        Native.close(writeFd);
    }
}
