package io.github.purefuse.depotfs.store.s3;

import io.github.purefuse.depotfs.store.DepotException;
import io.github.purefuse.depotfs.store.Hash;

/**
 * Where a depot lives in S3: a bucket and a key prefix, written {@code s3://BUCKET/PREFIX}. The depot's
 * keys are the local depot's relative paths under the prefix (see {@code FORMAT.md}):
 * {@code PREFIX/depotfs-depot.json}, {@code PREFIX/objects/ab/cdef…}, {@code PREFIX/refs/NAME}.
 *
 * @param bucket the bucket name (3 to 63 characters)
 * @param prefix the key prefix without leading or trailing {@code /}; empty for the bucket's top
 */
public record S3Location(String bucket, String prefix) {

    /** The scheme of a depot address in S3. */
    public static final String SCHEME = "s3://";

    /**
     * Parses {@code s3://BUCKET[/PREFIX]}.
     *
     * @param address the address
     * @return the location
     * @throws DepotException with {@link DepotException.Reason#INVALID} for anything else
     */
    public static S3Location parse(String address) throws DepotException {
        if (!address.startsWith(SCHEME)) {
            throw new DepotException(DepotException.Reason.INVALID, "not an S3 address (s3://BUCKET/PREFIX): " + address);
        }
        String rest = address.substring(SCHEME.length());
        int slash = rest.indexOf('/');
        String bucket = slash < 0 ? rest : rest.substring(0, slash);
        String prefix = slash < 0 ? "" : rest.substring(slash + 1);
        while (prefix.endsWith("/")) {
            prefix = prefix.substring(0, prefix.length() - 1);
        }
        if (bucket.length() < 3 || bucket.length() > 63 || !bucket.matches("[a-z0-9][a-z0-9.-]*[a-z0-9]")) {
            throw new DepotException(DepotException.Reason.INVALID, "bad bucket name '" + bucket + "' in " + address
                    + " (3 to 63 characters of a-z, 0-9, '.', '-')");
        }
        if (prefix.startsWith("/") || prefix.contains("//")) {
            throw new DepotException(DepotException.Reason.INVALID, "bad key prefix '" + prefix + "' in " + address
                    + " (no empty path segments)");
        }
        for (String segment : prefix.split("/")) {
            if (segment.equals(".") || segment.equals("..")) { // servers resolve them, or refuse: neither is the key
                throw new DepotException(DepotException.Reason.INVALID, "bad key prefix '" + prefix + "' in " + address
                        + " (no '.' or '..' path segments)");
            }
        }
        return new S3Location(bucket, prefix);
    }

    /**
     * {@return the key of a path relative to the depot, e.g. {@code refs/main}}
     *
     * @param relative the path inside the depot
     */
    public String key(String relative) {
        return prefix.isEmpty() ? relative : prefix + "/" + relative;
    }

    /**
     * {@return the key of an object or manifest: {@code PREFIX/objects/ab/cdef…}}
     *
     * @param hash its SHA-256
     */
    public String objectKey(Hash hash) {
        String hex = hash.toHex();
        return key("objects/" + hex.substring(0, 2) + "/" + hex.substring(2));
    }

    /**
     * {@return the key of an object's chunk checksums: {@code PREFIX/chunks/ab/cdef…}}
     *
     * @param object the object's SHA-256
     */
    public String chunkSumsKey(Hash object) {
        String hex = object.toHex();
        return key("chunks/" + hex.substring(0, 2) + "/" + hex.substring(2));
    }

    /** {@return the key prefix under which the roots are: {@code PREFIX/refs/}} */
    public String refsPrefix() {
        return key("refs/");
    }

    @Override
    public String toString() {
        return SCHEME + bucket + (prefix.isEmpty() ? "" : "/" + prefix);
    }
}
