package io.github.purefuse.depotfs.it;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A loopback TCP proxy in front of an S3 server that injects faults: after {@link #throttle(int)} the next
 * {@code n} connections get {@code 503 SlowDown} (the S3 throttling answer) and are closed; after
 * {@link #damageNextBody(int)} one response body arrives with a byte flipped (a bad link); after
 * {@link #limitRate(long)} the answers of all connections together arrive at most that fast (a slow link); the
 * rest is passed through byte for byte (so request signatures stay valid).
 */
final class FaultProxy implements AutoCloseable {

    private static final byte[] SLOW_DOWN_BODY = ("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>SlowDown</Code>"
            + "<Message>Please reduce your request rate.</Message></Error>").getBytes(StandardCharsets.UTF_8);

    private final ServerSocket server;
    private final int upstreamPort;
    private final AtomicInteger throttleNext = new AtomicInteger();
    private final AtomicInteger throttled = new AtomicInteger();
    /** Until when ({@link System#nanoTime}) every new connection gets {@code 500 InternalError}; see {@link #failFor}. */
    private volatile long failUntil;
    private volatile boolean failing;
    private final AtomicInteger failed = new AtomicInteger();
    private final AtomicInteger passed = new AtomicInteger();
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();
    private final Thread acceptor;
    private volatile boolean hideConditions;
    /** Whether only {@code If-Match} is hidden: see {@link #hideIfMatch()}. */
    private volatile boolean hideIfMatch;
    /** Whether {@code If-Match} is compared as Ceph radosgw 16.2 does: see {@link #compareIfMatchWithBareEtag()}. */
    private volatile boolean bareIfMatch;
    private volatile java.time.@org.jspecify.annotations.Nullable Duration completeDelay;
    private final AtomicInteger completes = new AtomicInteger();
    private volatile boolean hideRanges;
    /** The body byte to flip in the next response long enough to have it; -1: none. */
    private final AtomicInteger damageAt = new AtomicInteger(-1);
    private final AtomicInteger damaged = new AtomicInteger();
    /** Bytes per second of the answers, all connections together; 0: no limit. */
    private volatile long rate;
    /** When the link is free again ({@link System#nanoTime}), under {@code this}. */
    private long linkFree;

    FaultProxy(URI upstream) throws IOException {
        this.upstreamPort = upstream.getPort();
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        this.acceptor = Thread.ofVirtual().name("throttling-proxy").start(this::acceptLoop);
    }

    URI endpoint() {
        return URI.create("http://127.0.0.1:" + server.getLocalPort());
    }

    /** Answers the next {@code n} connections with 503 SlowDown; closes the connections open now. */
    void throttle(int n) {
        throttleNext.set(n);
        for (Socket s : open) {
            closeQuietly(s);
        }
    }

    /**
     * Answers every connection accepted in the next {@code window} with {@code 500 InternalError} (a brief
     * outage of the server behind: a restart, a load balancer's failover); closes the connections open now.
     */
    void failFor(java.time.Duration window) {
        failUntil = System.nanoTime() + window.toNanos();
        failing = true;
        for (Socket s : open) {
            closeQuietly(s);
        }
    }

    /** {@return connections answered with 500 so far} */
    int failed() {
        return failed.get();
    }

    /**
     * Makes the server behind look like one without conditional writes: {@code If-None-Match} and
     * {@code If-Match} request headers are renamed (the server ignores them) and every connection is
     * closed after one request, so that each request's headers pass through here. For servers that do
     * not check signatures ({@code s3proxy.authorization=none}).
     */
    void hideConditionalHeaders() {
        hideConditions = true;
    }

    /**
     * Makes the server behind compare {@code If-Match} as Ceph radosgw 16.2 does: with its stored ETag, which
     * has no quotes, so that the quoted ETag it returns itself (and the SDK hands back) never matches, and only
     * the bare hex does. Every connection is closed after one request, as for {@link #hideConditionalHeaders()}.
     * For servers that do not check signatures ({@code s3proxy.authorization=none}).
     */
    void compareIfMatchWithBareEtag() {
        bareIfMatch = true;
    }

    /**
     * As {@link #hideConditionalHeaders()}, for {@code If-Match} only: a server that honours conditional creates
     * ({@code If-None-Match: *}) but writes over whatever ETag a write expects.
     */
    void hideIfMatch() {
        hideIfMatch = true;
    }

    /**
     * As {@link #hideConditionalHeaders()}, and the {@code Range} header too: a server that ignores ranges and
     * answers every GET with the whole object ({@code 200}, no {@code Content-Range}).
     */
    void hideRangeHeaders() {
        hideRanges = true;
        hideConditions = true;
    }

    /**
     * Flips byte {@code at} of the body of the next response whose body is longer than that (a GET of an
     * object's bytes), once; closes the connections open now so that the next request opens one.
     */
    void damageNextBody(int at) {
        damageAt.set(at);
        for (Socket s : open) {
            closeQuietly(s);
        }
    }

    /**
     * Holds back each answer to a CompleteMultipartUpload (a response whose bytes hold
     * {@code CompleteMultipartUploadResult}) for {@code d}, as a server does that assembles a large object slowly
     * before it answers (the server behind has completed it already).
     */
    void delayCompletes(java.time.Duration d) {
        completeDelay = d;
    }

    /** {@return answers to CompleteMultipartUpload seen so far (with {@link #delayCompletes})} */
    int completes() {
        return completes.get();
    }

    /** Lets the answers of all connections together through at {@code bytesPerSecond} at most (0: no limit). */
    void limitRate(long bytesPerSecond) {
        rate = bytesPerSecond;
    }

    /** Waits until {@code n} more bytes may pass at the link's rate. */
    private void pace(int n) throws InterruptedException {
        long r = rate;
        if (r <= 0) {
            return;
        }
        long due;
        synchronized (this) {
            long now = System.nanoTime();
            due = Math.max(now, linkFree);
            linkFree = due + n * 1_000_000_000L / r;
        }
        long wait = due - System.nanoTime();
        if (wait > 0) {
            Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
        }
    }

    /** {@return response bodies damaged so far} */
    int damaged() {
        return damaged.get();
    }

    /** {@return connections answered with 503 so far} */
    int throttled() {
        return throttled.get();
    }

    /** {@return connections passed through so far} */
    int passed() {
        return passed.get();
    }

    private void acceptLoop() {
        while (!server.isClosed()) {
            Socket client;
            try {
                client = server.accept();
            } catch (IOException e) {
                return;
            }
            Thread.ofVirtual().start(() -> serve(client));
        }
    }

    private void serve(Socket client) {
        open.add(client);
        try (client) {
            if (throttleNext.getAndUpdate(n -> n > 0 ? n - 1 : 0) > 0) {
                readHeaders(client.getInputStream());
                OutputStream out = client.getOutputStream();
                out.write(("HTTP/1.1 503 Slow Down\r\nContent-Type: application/xml\r\nContent-Length: " + SLOW_DOWN_BODY.length
                        + "\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
                out.write(SLOW_DOWN_BODY);
                out.flush();
                throttled.incrementAndGet();
                return;
            }
            if (failing && System.nanoTime() - failUntil < 0) {
                readHeaders(client.getInputStream());
                byte[] body = ("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>InternalError</Code>"
                        + "<Message>We encountered an internal error. Please try again.</Message></Error>")
                        .getBytes(StandardCharsets.UTF_8);
                OutputStream out = client.getOutputStream();
                out.write(("HTTP/1.1 500 Internal Server Error\r\nContent-Type: application/xml\r\nContent-Length: "
                        + body.length + "\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
                out.write(body);
                out.flush();
                failed.incrementAndGet();
                return;
            }
            passed.incrementAndGet();
            try (Socket up = new Socket(InetAddress.getLoopbackAddress(), upstreamPort)) {
                open.add(up);
                if (hideConditions || bareIfMatch || hideIfMatch) {
                    String head = new String(readHeaderBytes(client.getInputStream()), StandardCharsets.ISO_8859_1);
                    StringBuilder out = new StringBuilder();
                    for (String line : head.split("\r\n")) {
                        String lower = line.toLowerCase(java.util.Locale.ROOT);
                        if (line.isEmpty() || lower.startsWith("connection:")) {
                            continue;
                        }
                        if (bareIfMatch && lower.startsWith("if-match:")) {
                            String value = line.substring("if-match:".length()).strip();
                            // radosgw: strcmp(header, stored bare ETag)
                            line = value.startsWith("\"") ? "If-Match: \"quoted-etag-never-matches-on-radosgw\""
                                    : value.equals("*") ? line : "If-Match: \"" + value + "\"";
                        } else if (hideConditions && (lower.startsWith("if-none-match:") || lower.startsWith("if-match:")
                                || (hideRanges && lower.startsWith("range:"))) || hideIfMatch && lower.startsWith("if-match:")) {
                            line = "X-Hidden-" + line;
                        }
                        out.append(line).append("\r\n");
                    }
                    out.append("Connection: close\r\n\r\n");
                    up.getOutputStream().write(out.toString().getBytes(StandardCharsets.ISO_8859_1));
                }
                Thread back = Thread.ofVirtual().start(() -> {
                    if (damageAt.get() >= 0) {
                        damageFirstBody(up, client);
                    }
                    pipePaced(up, client);
                });
                pipe(client, up);
                back.join();
            } finally {
                open.removeIf(Socket::isClosed);
            }
        } catch (IOException | InterruptedException e) {
            // a closed connection ends the pipe
        } finally {
            open.remove(client);
        }
    }

    private static void readHeaders(InputStream in) throws IOException {
        readHeaderBytes(in);
    }

    /** Reads a request's header block up to and including the empty line. */
    private static byte[] readHeaderBytes(InputStream in) throws IOException {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        int state = 0;
        while (state < 4) {
            int b = in.read();
            if (b < 0) {
                break;
            }
            out.write(b);
            state = (b == '\r' && (state == 0 || state == 2)) || (b == '\n' && (state == 1 || state == 3)) ? state + 1 : 0;
        }
        return out.toByteArray();
    }

    private static void pipe(Socket from, Socket to) {
        try {
            from.getInputStream().transferTo(to.getOutputStream());
        } catch (IOException e) {
            // closed
        } finally {
            closeQuietly(from);
            closeQuietly(to);
        }
    }

    /**
     * Passes the first response of a connection on with byte {@link #damageAt} of its body flipped, if it is
     * long enough and no other response took the damage first; the rest of the connection is {@link #pipe}d.
     */
    private void damageFirstBody(Socket from, Socket to) {
        try {
            InputStream in = from.getInputStream();
            OutputStream out = to.getOutputStream();
            byte[] head = readHeaderBytes(in);
            out.write(head);
            long length = -1;
            for (String line : new String(head, StandardCharsets.ISO_8859_1).split("\r\n")) {
                if (line.toLowerCase(java.util.Locale.ROOT).startsWith("content-length:")) {
                    length = Long.parseLong(line.substring(line.indexOf(':') + 1).strip());
                }
            }
            int at = damageAt.get();
            if (at < 0 || length <= at || !damageAt.compareAndSet(at, -1)) {
                return;
            }
            out.write(in.readNBytes(at));
            int b = in.read();
            if (b >= 0) {
                out.write(b ^ 0x01);
                damaged.incrementAndGet();
            }
            out.flush();
        } catch (IOException | NumberFormatException e) {
            // a closed connection: pipe ends it
        }
    }

    /** {@link #pipe}, at the link's rate. */
    private void pipePaced(Socket from, Socket to) {
        try {
            InputStream in = from.getInputStream();
            OutputStream out = to.getOutputStream();
            byte[] buf = new byte[16 << 10];
            for (int n; (n = in.read(buf)) >= 0; ) {
                java.time.Duration hold = completeDelay;
                if (hold != null && new String(buf, 0, n, StandardCharsets.ISO_8859_1).contains("CompleteMultipartUploadResult")) {
                    completes.incrementAndGet();
                    Thread.sleep(hold);
                }
                pace(n);
                out.write(buf, 0, n);
            }
        } catch (IOException | InterruptedException e) {
            // closed
        } finally {
            closeQuietly(from);
            closeQuietly(to);
        }
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException e) {
            // already closed
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
        for (Socket s : open) {
            closeQuietly(s);
        }
    }
}
