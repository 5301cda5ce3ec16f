package io.github.purefuse.channel.internal.linux;

import jnr.ffi.Pointer;
import jnr.ffi.annotations.In;
import jnr.ffi.annotations.Out;
import jnr.ffi.annotations.SaveError;
import jnr.ffi.types.intptr_t;
import jnr.ffi.types.size_t;
import jnr.ffi.types.ssize_t;
import jnr.ffi.types.u_int64_t;
import org.jspecify.annotations.Nullable;

/**
 * The libc functions purefuse calls, bound by jnr-ffi. Every call saves {@code errno}; read it with
 * {@code jnr.ffi.LastError.getLastError} before any other native call on the same thread. Use the
 * checked wrappers in {@link Native}, not this interface.
 *
 * <p>Buffers are passed as raw addresses ({@code intptr_t}) of direct {@link java.nio.ByteBuffer}s so
 * that a call allocates nothing and copies nothing.
 */
@SaveError
public interface LibC {
    /** {@code int open(const char *path, int flags)} (no {@code O_CREAT}, so no mode). */
    int open(@In String path, int flags);

    /** {@code open(2)} of a path given as its bytes, NUL-terminated (names need not be UTF-8). */
    int open(@In byte[] path, int flags);

    /** {@code int close(int fd)}. */
    int close(int fd);

    /** {@code ssize_t read(int fd, void *buf, size_t count)}. */
    @ssize_t long read(int fd, @intptr_t long buf, @size_t long count);

    /** {@code ssize_t pread(int fd, void *buf, size_t count, off_t offset)}. */
    @ssize_t long pread(int fd, @intptr_t long buf, @size_t long count, long offset);

    /** {@code ssize_t preadv2(int fd, const struct iovec *iov, int iovcnt, off_t offset, int flags)}. */
    @ssize_t long preadv2(int fd, @intptr_t long iov, int iovcnt, long offset, int flags);

    /**
     * {@code ssize_t splice(int fd_in, off_t *off_in, int fd_out, off_t *off_out, size_t len, unsigned flags)}.
     * The offsets are {@link Pointer}s, not raw {@code intptr_t} addresses: with six primitive arguments
     * jnr-ffi 2.2.17's fast path leaves the sixth register ({@code flags}) unset, and the kernel refuses
     * the garbage with EINVAL (strace: {@code SPLICE_F_MOVE|SPLICE_F_MORE|0xd3945080}).
     */
    @ssize_t long splice(int fdIn, @Nullable Pointer offIn, int fdOut, @Nullable Pointer offOut, @size_t long len, int flags);

    /** {@code ssize_t vmsplice(int fd, const struct iovec *iov, size_t nr_segs, unsigned flags)}. */
    @ssize_t long vmsplice(int fd, @intptr_t long iov, @size_t long nrSegs, int flags);

    /** {@code int fcntl(int fd, int cmd, int arg)}. */
    int fcntl(int fd, int cmd, int arg);

    /** {@code off_t lseek(int fd, off_t offset, int whence)}. */
    long lseek(int fd, long offset, int whence);

    /** {@code ssize_t writev(int fd, const struct iovec *iov, int iovcnt)}. */
    @ssize_t long writev(int fd, @intptr_t long iov, int iovcnt);

    /** {@code int ioctl(int fd, unsigned long request, void *arg)}. */
    int ioctl(int fd, @u_int64_t long request, Pointer arg);

    /** {@code int mount(const char *source, const char *target, const char *type, unsigned long flags, const void *data)}. */
    int mount(@In String source, @In String target, @In String filesystemtype, @u_int64_t long mountflags,
              @In @Nullable String data);

    /** {@code int umount2(const char *target, int flags)}. */
    int umount2(@In String target, int flags);

    /** {@code int statx(int dirfd, const char *pathname, int flags, unsigned int mask, struct statx *statxbuf)}. */
    int statx(int dirfd, @In String pathname, int flags, int mask, Pointer statxbuf);

    /** {@code int poll(struct pollfd *fds, nfds_t nfds, int timeout)}. */
    int poll(Pointer fds, @u_int64_t long nfds, int timeout);

    /** {@code int socketpair(int domain, int type, int protocol, int sv[2])}. */
    int socketpair(int domain, int type, int protocol, @Out int[] sv);

    /** {@code ssize_t recvmsg(int sockfd, struct msghdr *msg, int flags)}. */
    @ssize_t long recvmsg(int sockfd, Pointer msg, int flags);

    /** {@code int pipe2(int pipefd[2], int flags)}. */
    int pipe2(@Out int[] pipefd, int flags);

    /** {@code uid_t getuid(void)}. */
    int getuid();

    /** {@code gid_t getgid(void)}. */
    int getgid();

    /** {@code uid_t geteuid(void)}. */
    int geteuid();

    /** {@code int getpagesize(void)}. */
    int getpagesize();

    /** {@code int posix_spawn_file_actions_init(posix_spawn_file_actions_t *fa)}. */
    int posix_spawn_file_actions_init(Pointer fileActions);

    /** {@code int posix_spawn_file_actions_adddup2(posix_spawn_file_actions_t *fa, int fd, int newfd)}. */
    int posix_spawn_file_actions_adddup2(Pointer fileActions, int fd, int newfd);

    /** {@code int posix_spawn_file_actions_destroy(posix_spawn_file_actions_t *fa)}. */
    int posix_spawn_file_actions_destroy(Pointer fileActions);

    /**
     * {@code int posix_spawnp(pid_t *pid, const char *file, const posix_spawn_file_actions_t *fa,
     * const posix_spawnattr_t *attr, char *const argv[], char *const envp[])}; returns an error number,
     * not -1.
     */
    int posix_spawnp(@Out int[] pid, @In String file, Pointer fileActions, @Nullable Pointer attr, Pointer argv,
                     Pointer envp);

    /** {@code pid_t waitpid(pid_t pid, int *status, int options)}. */
    int waitpid(int pid, @Out int[] status, int options);

    /** {@code int kill(pid_t pid, int sig)}. */
    int kill(int pid, int sig);

    /**
     * {@code long syscall(long number, ...)} with six integer arguments (unused ones 0), for system calls
     * that glibc does not wrap ({@code io_uring_setup}, {@code io_uring_enter}).
     */
    long syscall(long number, long a1, long a2, long a3, long a4, long a5, long a6);

    /** {@code int eventfd(unsigned int initval, int flags)}. */
    int eventfd(int initval, int flags);

    /** {@code ssize_t write(int fd, const void *buf, size_t count)}. */
    @ssize_t long write(int fd, @intptr_t long buf, @size_t long count);
}
