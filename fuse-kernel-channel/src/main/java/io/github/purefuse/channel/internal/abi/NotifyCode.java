package io.github.purefuse.channel.internal.abi;

/**
 * {@code enum fuse_notify_code}: the value of {@code fuse_out_header.error} in a notification
 * ({@code unique == 0}) written by the server.
 */
public final class NotifyCode {
    /** {@code FUSE_NOTIFY_POLL}: wake pollers of a poll handle. */
    public static final int POLL = 1;
    /** {@code FUSE_NOTIFY_INVAL_INODE}: drop cached attributes and data of a node. */
    public static final int INVAL_INODE = 2;
    /** {@code FUSE_NOTIFY_INVAL_ENTRY}: drop a cached name. */
    public static final int INVAL_ENTRY = 3;
    /** {@code FUSE_NOTIFY_STORE}: put data into the page cache. */
    public static final int STORE = 4;
    /** {@code FUSE_NOTIFY_RETRIEVE}: ask for cached data back (answered by FUSE_NOTIFY_REPLY). */
    public static final int RETRIEVE = 5;
    /** {@code FUSE_NOTIFY_DELETE}: a name was deleted. */
    public static final int DELETE = 6;
    /** {@code FUSE_NOTIFY_RESEND}: re-queue requests in processing (7.40). */
    public static final int RESEND = 7;
    /** {@code FUSE_NOTIFY_INC_EPOCH}: revalidate every older dentry (7.44). */
    public static final int INC_EPOCH = 8;
    /** {@code FUSE_NOTIFY_PRUNE}: drop unused cached nodes (7.45). */
    public static final int PRUNE = 9;

    /**
     * {@code FUSE_EXPIRE_ONLY}: the flag of {@code fuse_notify_inval_entry_out.flags} (7.38) that expires the name
     * instead of dropping it; a kernel that offers {@code FUSE_HAS_EXPIRE_ONLY} honours it.
     */
    public static final int INVAL_ENTRY_EXPIRE_ONLY = 1 << 0;

    private NotifyCode() {
    }

    /**
     * Returns the C name of a notify code.
     *
     * @param code the code
     * @return e.g. {@code "FUSE_NOTIFY_STORE"}, or {@code "notify 42"} for an unknown code
     */
    public static String name(int code) {
        return switch (code) {
            case POLL -> "FUSE_NOTIFY_POLL";
            case INVAL_INODE -> "FUSE_NOTIFY_INVAL_INODE";
            case INVAL_ENTRY -> "FUSE_NOTIFY_INVAL_ENTRY";
            case STORE -> "FUSE_NOTIFY_STORE";
            case RETRIEVE -> "FUSE_NOTIFY_RETRIEVE";
            case DELETE -> "FUSE_NOTIFY_DELETE";
            case RESEND -> "FUSE_NOTIFY_RESEND";
            case INC_EPOCH -> "FUSE_NOTIFY_INC_EPOCH";
            case PRUNE -> "FUSE_NOTIFY_PRUNE";
            default -> "notify " + code;
        };
    }
}
