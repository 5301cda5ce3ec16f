package io.github.purefuse.api.types;

/**
 * A Linux errno value, as a FUSE reply carries it: {@code fuse_out_header.error = -errno}.
 *
 * <p>The kernel accepts errors 1 to 511 ({@code fuse_dev_do_write} refuses anything else with
 * EINVAL). Constants exist for the values a read-only server uses; {@link #of(int)} makes any
 * other. Numbers are those of x86_64 and aarch64 Linux.
 *
 * @param code the positive errno number, 1 to 511
 */
public record Errno(int code) {
    /** {@code EPERM} (1): Operation not permitted. */
    public static final Errno EPERM = new Errno(1);
    /** {@code ENOENT} (2): No such file or directory. */
    public static final Errno ENOENT = new Errno(2);
    /** {@code EINTR} (4): Interrupted system call. */
    public static final Errno EINTR = new Errno(4);
    /** {@code EIO} (5): Input/output error. */
    public static final Errno EIO = new Errno(5);
    /** {@code ENXIO} (6): No such device or address. */
    public static final Errno ENXIO = new Errno(6);
    /** {@code E2BIG} (7): Argument list too long. */
    public static final Errno E2BIG = new Errno(7);
    /** {@code EBADF} (9): Bad file descriptor. */
    public static final Errno EBADF = new Errno(9);
    /** {@code EAGAIN} (11): Resource temporarily unavailable. */
    public static final Errno EAGAIN = new Errno(11);
    /** {@code ENOMEM} (12): Cannot allocate memory. */
    public static final Errno ENOMEM = new Errno(12);
    /** {@code EACCES} (13): Permission denied. */
    public static final Errno EACCES = new Errno(13);
    /** {@code EBUSY} (16): Device or resource busy. */
    public static final Errno EBUSY = new Errno(16);
    /** {@code EEXIST} (17): File exists. */
    public static final Errno EEXIST = new Errno(17);
    /** {@code EXDEV} (18): Invalid cross-device link. */
    public static final Errno EXDEV = new Errno(18);
    /** {@code ENODEV} (19): No such device. */
    public static final Errno ENODEV = new Errno(19);
    /** {@code ENOTDIR} (20): Not a directory. */
    public static final Errno ENOTDIR = new Errno(20);
    /** {@code EISDIR} (21): Is a directory. */
    public static final Errno EISDIR = new Errno(21);
    /** {@code EINVAL} (22): Invalid argument. */
    public static final Errno EINVAL = new Errno(22);
    /** {@code EMFILE} (24): Too many open files. */
    public static final Errno EMFILE = new Errno(24);
    /** {@code ENOTTY} (25): Inappropriate ioctl for device. */
    public static final Errno ENOTTY = new Errno(25);
    /** {@code EFBIG} (27): File too large. */
    public static final Errno EFBIG = new Errno(27);
    /** {@code ENOSPC} (28): No space left on device. */
    public static final Errno ENOSPC = new Errno(28);
    /** {@code ESPIPE} (29): Illegal seek. */
    public static final Errno ESPIPE = new Errno(29);
    /** {@code EROFS} (30): Read-only file system. */
    public static final Errno EROFS = new Errno(30);
    /** {@code ERANGE} (34): Numerical result out of range. */
    public static final Errno ERANGE = new Errno(34);
    /** {@code ENAMETOOLONG} (36): File name too long. */
    public static final Errno ENAMETOOLONG = new Errno(36);
    /** {@code ENOSYS} (38): Function not implemented. */
    public static final Errno ENOSYS = new Errno(38);
    /** {@code ENOTEMPTY} (39): Directory not empty. */
    public static final Errno ENOTEMPTY = new Errno(39);
    /** {@code ELOOP} (40): Too many levels of symbolic links. */
    public static final Errno ELOOP = new Errno(40);
    /** {@code ENODATA} (61): No data available. */
    public static final Errno ENODATA = new Errno(61);
    /** {@code EOVERFLOW} (75): Value too large for defined data type. */
    public static final Errno EOVERFLOW = new Errno(75);
    /** {@code EOPNOTSUPP} (95): Operation not supported. */
    public static final Errno EOPNOTSUPP = new Errno(95);
    /** {@code ECONNABORTED} (103): Software caused connection abort. */
    public static final Errno ECONNABORTED = new Errno(103);
    /** {@code ENOTCONN} (107): Transport endpoint is not connected. */
    public static final Errno ENOTCONN = new Errno(107);
    /** {@code ETIMEDOUT} (110): Connection timed out. */
    public static final Errno ETIMEDOUT = new Errno(110);
    /** {@code ECONNREFUSED} (111): Connection refused. */
    public static final Errno ECONNREFUSED = new Errno(111);
    /** {@code ESTALE} (116): Stale file handle. */
    public static final Errno ESTALE = new Errno(116);
    /** {@code ECANCELED} (125): Operation canceled. */
    public static final Errno ECANCELED = new Errno(125);

    /**
     * Validates the code.
     *
     * @throws IllegalArgumentException if {@code code} is outside 1..511, which the kernel refuses
     */
    public Errno {
        if (code < 1 || code > 511) {
            throw new IllegalArgumentException("errno must be 1..511, was " + code);
        }
    }

    /**
     * Returns the errno with this number.
     *
     * @param code a positive errno number, 1 to 511
     * @return the errno
     * @throws IllegalArgumentException if {@code code} is outside 1..511
     */
    public static Errno of(int code) {
        return new Errno(code);
    }

    /** {@return the C name, e.g. {@code "ENOENT"}, or {@code "errno 123"} for numbers without a constant here} */
    public String name() {
        return switch (code) {
            case 1 -> "EPERM";
            case 2 -> "ENOENT";
            case 4 -> "EINTR";
            case 5 -> "EIO";
            case 6 -> "ENXIO";
            case 7 -> "E2BIG";
            case 9 -> "EBADF";
            case 11 -> "EAGAIN";
            case 12 -> "ENOMEM";
            case 13 -> "EACCES";
            case 16 -> "EBUSY";
            case 17 -> "EEXIST";
            case 18 -> "EXDEV";
            case 19 -> "ENODEV";
            case 20 -> "ENOTDIR";
            case 21 -> "EISDIR";
            case 22 -> "EINVAL";
            case 24 -> "EMFILE";
            case 25 -> "ENOTTY";
            case 27 -> "EFBIG";
            case 28 -> "ENOSPC";
            case 29 -> "ESPIPE";
            case 30 -> "EROFS";
            case 34 -> "ERANGE";
            case 36 -> "ENAMETOOLONG";
            case 38 -> "ENOSYS";
            case 39 -> "ENOTEMPTY";
            case 40 -> "ELOOP";
            case 61 -> "ENODATA";
            case 75 -> "EOVERFLOW";
            case 95 -> "EOPNOTSUPP";
            case 103 -> "ECONNABORTED";
            case 107 -> "ENOTCONN";
            case 110 -> "ETIMEDOUT";
            case 111 -> "ECONNREFUSED";
            case 116 -> "ESTALE";
            case 125 -> "ECANCELED";
            default -> "errno " + code;
        };
    }

    /** {@return the C library's message, e.g. "No such file or directory", or the name when unknown} */
    public String description() {
        return switch (code) {
            case 1 -> "Operation not permitted";
            case 2 -> "No such file or directory";
            case 4 -> "Interrupted system call";
            case 5 -> "Input/output error";
            case 6 -> "No such device or address";
            case 7 -> "Argument list too long";
            case 9 -> "Bad file descriptor";
            case 11 -> "Resource temporarily unavailable";
            case 12 -> "Cannot allocate memory";
            case 13 -> "Permission denied";
            case 16 -> "Device or resource busy";
            case 17 -> "File exists";
            case 18 -> "Invalid cross-device link";
            case 19 -> "No such device";
            case 20 -> "Not a directory";
            case 21 -> "Is a directory";
            case 22 -> "Invalid argument";
            case 24 -> "Too many open files";
            case 25 -> "Inappropriate ioctl for device";
            case 27 -> "File too large";
            case 28 -> "No space left on device";
            case 29 -> "Illegal seek";
            case 30 -> "Read-only file system";
            case 34 -> "Numerical result out of range";
            case 36 -> "File name too long";
            case 38 -> "Function not implemented";
            case 39 -> "Directory not empty";
            case 40 -> "Too many levels of symbolic links";
            case 61 -> "No data available";
            case 75 -> "Value too large for defined data type";
            case 95 -> "Operation not supported";
            case 103 -> "Software caused connection abort";
            case 107 -> "Transport endpoint is not connected";
            case 110 -> "Connection timed out";
            case 111 -> "Connection refused";
            case 116 -> "Stale file handle";
            case 125 -> "Operation canceled";
            default -> name();
        };
    }

    @Override
    public String toString() {
        return name();
    }
}
