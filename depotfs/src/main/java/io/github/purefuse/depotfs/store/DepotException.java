package io.github.purefuse.depotfs.store;

import java.io.IOException;
import org.jspecify.annotations.Nullable;

/**
 * A depot operation failed for a reason the depot can name. Its message is one line meant for a user.
 */
public class DepotException extends IOException {

    private static final long serialVersionUID = 1L;

    /** Why an operation failed. */
    public enum Reason {
        /** The directory does not exist or is not a depot (no marker file). */
        NOT_A_DEPOT,
        /** A root, object, bundle or path does not exist. */
        NOT_FOUND,
        /** Stored data does not match its hash or size, or a manifest cannot be parsed. */
        CORRUPT,
        /** A store file is there but this process may not read it (its permissions, or its directory's). */
        UNREADABLE,
        /** The request is invalid: a bad name, a cycle, a path that is not a bundle, an existing path. */
        INVALID,
        /** A root changed while it was being updated (compare-and-set failed). */
        CONFLICT,
        /**
         * The bytes handed to a put hash differently from what the caller read from the same source before:
         * the source changed in between (nothing is stored).
         */
        SOURCE_CHANGED
    }

    private final Reason reason;

    /**
     * Creates the exception.
     *
     * @param reason  the reason
     * @param message one line for a user
     */
    public DepotException(Reason reason, String message) {
        super(message);
        this.reason = reason;
    }

    /**
     * Creates the exception with a cause.
     *
     * @param reason  the reason
     * @param message one line for a user
     * @param cause   the underlying failure
     */
    public DepotException(Reason reason, String message, Throwable cause) {
        super(message, cause);
        this.reason = reason;
    }

    /** {@return why the operation failed} */
    public Reason reason() {
        return reason;
    }

    /**
     * The failure of a {@link WritableDepot#setRoot} whose root is not what the caller read: one wording for
     * every depot.
     *
     * @param name     the root
     * @param expected what the caller read ({@code null}: no root)
     * @param current  what the root is now ({@code null}: no root)
     * @return a {@link DepotException.Reason#CONFLICT}
     */
    public static DepotException rootChanged(String name, @Nullable Hash expected, @Nullable Hash current) {
        return new DepotException(DepotException.Reason.CONFLICT, "root '" + name + "' "
                + (expected == null ? "was created meanwhile" : "changed meanwhile") + " (now "
                + (current == null ? "absent" : current.shortHex()) + "); try again");
    }

    /**
     * The failure of a put whose bytes do not hash to what its caller expected ({@link WritableDepot#putObject}):
     * one wording for every depot.
     *
     * @param actual   what the bytes hash to
     * @param expected what the caller read before
     * @return a {@link DepotException.Reason#SOURCE_CHANGED}
     */
    public static DepotException sourceChanged(Hash actual, Hash expected) {
        return new DepotException(DepotException.Reason.SOURCE_CHANGED, "it changed while it was read (its content "
                + "hashed to " + expected.shortHex() + ", then to " + actual.shortHex() + ")");
    }
}
