package io.github.purefuse.bench.peers;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Arrays;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A TCP proxy that delays every byte by a fixed one-way time in each direction: a round trip through it
 * costs {@code 2 × DELAY_MS} more. The bench's network namespace uses it where the kernel has no
 * {@code netem} qdisc ({@code CONFIG_NET_SCH_NETEM} unset); the bandwidth cap stays in the kernel
 * ({@code tc tbf} on the veth). Each direction of each connection has a reader that stamps chunks with
 * their release time and a writer that sends them when it comes; at most {@code 64 MiB} wait per
 * direction (back-pressure beyond). The window is not emulated: the proxy buffers what TCP would
 * have in flight, so it models per-request latency, which is what S3 clients pay.
 *
 * <p>Usage: {@code DelayProxy LISTEN_HOST LISTEN_PORT TARGET_HOST TARGET_PORT DELAY_MS}; runs until killed.
 */
public final class DelayProxy {
    private static final int CHUNK = 64 * 1024;
    private static final int MAX_QUEUED = 64 << 20;

    private record Chunk(long releaseNanos, byte[] bytes, int length) {
    }

    private DelayProxy() {
    }

    /**
     * Listens and forwards.
     *
     * @param args see the class comment
     * @throws IOException if the listening socket cannot be bound
     */
    public static void main(String[] args) throws IOException {
        if (args.length != 5) {
            System.err.println("usage: DelayProxy LISTEN_HOST LISTEN_PORT TARGET_HOST TARGET_PORT DELAY_MS");
            System.exit(2);
        }
        InetSocketAddress target = new InetSocketAddress(args[2], Integer.parseInt(args[3]));
        long delay = Long.parseLong(args[4]) * 1_000_000L;
        try (ServerSocket server = new ServerSocket()) {
            server.setReuseAddress(true);
            server.bind(new InetSocketAddress(args[0], Integer.parseInt(args[1])), 512);
            System.err.println("DelayProxy " + args[0] + ":" + args[1] + " -> " + target + ", +" + args[4] + " ms each way");
            while (true) {
                Socket client = server.accept();
                Thread.ofPlatform().daemon().start(() -> connect(client, target, delay));
            }
        }
    }

    private static void connect(Socket client, InetSocketAddress target, long delay) {
        try {
            Socket upstream = new Socket();
            upstream.connect(target);
            for (Socket s : new Socket[] {client, upstream}) {
                s.setTcpNoDelay(true);
            }
            AtomicInteger open = new AtomicInteger(2);
            pipe(client, upstream, delay, open);
            pipe(upstream, client, delay, open);
        } catch (IOException e) {
            close(client);
        }
    }

    private static void pipe(Socket from, Socket to, long delay, AtomicInteger open) {
        LinkedBlockingQueue<Chunk> queue = new LinkedBlockingQueue<>();
        Semaphore budget = new Semaphore(MAX_QUEUED);
        Thread.ofPlatform().daemon().start(() -> {
            try (InputStream in = from.getInputStream()) {
                while (true) {
                    byte[] b = new byte[CHUNK];
                    int n = in.read(b);
                    if (n < 0) {
                        break;
                    }
                    budget.acquire(n);
                    queue.put(new Chunk(System.nanoTime() + delay, n < CHUNK / 4 ? Arrays.copyOf(b, n) : b, n));
                }
            } catch (IOException | InterruptedException e) {
                // the connection ends: the writer sends what is queued, then closes
            }
            queue.add(new Chunk(System.nanoTime() + delay, new byte[0], -1));
        });
        Thread.ofPlatform().daemon().start(() -> {
            try {
                OutputStream out = to.getOutputStream();
                while (true) {
                    Chunk c = queue.take();
                    long wait = c.releaseNanos() - System.nanoTime();
                    if (wait > 0) {
                        Thread.sleep(wait / 1_000_000L, (int) (wait % 1_000_000L));
                    }
                    if (c.length() < 0) {
                        to.shutdownOutput();
                        if (open.decrementAndGet() == 0) {   // both directions done
                            close(from);
                            close(to);
                        }
                        break;
                    }
                    out.write(c.bytes(), 0, c.length());
                    budget.release(c.length());
                }
            } catch (IOException | InterruptedException e) {
                close(from);
                close(to);
            }
        });
    }

    private static void close(Socket s) {
        try {
            s.close();
        } catch (IOException e) {
            // already closed
        }
    }
}
