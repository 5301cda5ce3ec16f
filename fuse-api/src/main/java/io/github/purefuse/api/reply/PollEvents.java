package io.github.purefuse.api.reply;

/**
 * The result of a POLL: {@code struct fuse_poll_out}.
 *
 * @param revents the ready {@code poll} events ({@code POLLIN} 1, {@code POLLOUT} 4, ...)
 */
public record PollEvents(int revents) implements PollReply {
}
