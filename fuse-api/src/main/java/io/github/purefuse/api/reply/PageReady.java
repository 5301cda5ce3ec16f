package io.github.purefuse.api.reply;

/**
 * The answer to READDIR or READDIRPLUS: send the entries added to the request's
 * {@link DirectoryPage}. A page with no entries tells the kernel the listing is complete.
 * Obtained from {@link DirectoryPage#done()}.
 */
public record PageReady() implements ReaddirReply {
    /** The only instance needed. */
    public static final PageReady INSTANCE = new PageReady();
}
