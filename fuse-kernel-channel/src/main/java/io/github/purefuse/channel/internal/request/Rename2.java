package io.github.purefuse.channel.internal.request;

import io.github.purefuse.api.request.RequestHeader;

/**
 * {@code FUSE_RENAME2}: Renames an entry with {@code renameat2(2)} flags.
 *
 * <p>Wire format: {@code fuse_in_header} + {@code fuse_rename2_in + old name + new name}.
 *
 * @param header the request header (unique, nodeid, caller credentials)
 * @param newDir the nodeid of the target directory
 * @param renameFlags {@code RENAME_*} flags
 * @param oldName the old name
 * @param newName the new name
 */
public record Rename2(RequestHeader header, long newDir, int renameFlags, String oldName, String newName) implements WriteRequest {
}
