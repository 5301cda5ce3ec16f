package io.github.purefuse.api.request;


/**
 * {@code FUSE_ACCESS}: Checks permission ({@code access(2)}, {@code chdir}); only sent without {@code default_permissions}.
 *
 * <p>Wire format: {@code fuse_in_header} + {@code fuse_access_in}.
 *
 * @param header the request header (unique, nodeid, caller credentials)
 * @param mask {@code R_OK} 4, {@code W_OK} 2, {@code X_OK} 1
 */
public record Access(RequestHeader header, int mask) implements FuseRequest {
}
