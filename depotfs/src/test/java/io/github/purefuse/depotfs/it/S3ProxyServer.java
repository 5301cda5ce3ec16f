package io.github.purefuse.depotfs.it;

import io.github.purefuse.depotfs.store.s3.S3Options;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * A real S3 server for tests: S3Proxy ({@code org.gaul:s3proxy}, from the test class path) with its
 * filesystem backend, run as a child JVM on a loopback port, so that a test can kill it
 * ({@code SIGKILL}), freeze it ({@code SIGSTOP}) and start it again on the same port and data.
 */
public final class S3ProxyServer implements AutoCloseable {

    public static final String IDENTITY = "depotfs-test-key";
    public static final String CREDENTIAL = "depotfs-test-secret";

    private final Path dir;
    private final int port;
    private final String authorization;
    private Process process;
    /** A PKCS12 key store (password {@code changeit}) for an https port beside the http one, or null. */
    private Path keyStore;
    private int tlsPort;

    private S3ProxyServer(Path dir, int port, String authorization) {
        this.dir = dir;
        this.port = port;
        this.authorization = authorization;
    }

    /**
     * Starts a server that checks signatures ({@code aws-v2-or-v4}), creates {@code bucket}, and gives this
     * JVM's default credential chain the test credentials ({@code aws.accessKeyId}/{@code aws.secretAccessKey}
     * system properties) for the depots and CLI runs of the test; a child process needs
     * {@link #credentialsEnvironment()}.
     *
     * @param dir    a fresh directory for the server's data
     * @param bucket the bucket to create
     */
    public static S3ProxyServer signed(Path dir, String bucket) throws IOException, InterruptedException {
        S3ProxyServer server = start(dir, "aws-v2-or-v4");
        server.createBucket(bucket);
        System.setProperty("aws.accessKeyId", IDENTITY);
        System.setProperty("aws.secretAccessKey", CREDENTIAL);
        return server;
    }

    /**
     * Starts a server whose data lives under {@code dir}.
     *
     * @param dir           a fresh directory
     * @param authorization {@code aws-v2-or-v4} (signed requests with {@link #IDENTITY}) or {@code none}
     */
    public static S3ProxyServer start(Path dir, String authorization) throws IOException, InterruptedException {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        S3ProxyServer server = new S3ProxyServer(dir, port, authorization);
        server.restart();
        return server;
    }

    /**
     * Starts a signed server ({@link #signed}) that also answers https on {@link #httpsEndpoint()}, with the key and
     * certificate of {@code keyStore} (PKCS12, password {@code changeit}).
     *
     * @param dir      a fresh directory for the server's data
     * @param bucket   the bucket to create
     * @param keyStore the server's key store
     */
    public static S3ProxyServer signedTls(Path dir, String bucket, Path keyStore) throws IOException, InterruptedException {
        int port;
        int tls;
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress());
             ServerSocket t = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
            tls = t.getLocalPort();
        }
        S3ProxyServer server = new S3ProxyServer(dir, port, "aws-v2-or-v4");
        server.keyStore = keyStore;
        server.tlsPort = tls;
        server.restart();
        server.createBucket(bucket);
        System.setProperty("aws.accessKeyId", IDENTITY);
        System.setProperty("aws.secretAccessKey", CREDENTIAL);
        return server;
    }

    /** {@return the https endpoint of a {@link #signedTls} server} */
    public URI httpsEndpoint() {
        return URI.create("https://127.0.0.1:" + tlsPort);
    }

    /** Starts the server process (again), on the same port and data. */
    void restart() throws IOException, InterruptedException {
        Path data = Files.createDirectories(dir.resolve("data"));
        Path props = dir.resolve("s3proxy.properties");
        Files.writeString(props, String.join("\n",
                "s3proxy.endpoint=http://127.0.0.1:" + port,
                "s3proxy.authorization=" + authorization,
                "s3proxy.identity=" + IDENTITY,
                "s3proxy.credential=" + CREDENTIAL,
                "jclouds.provider=filesystem",
                "jclouds.filesystem.basedir=" + data,
                keyStore == null ? "" : "s3proxy.secure-endpoint=https://127.0.0.1:" + tlsPort
                        + "\ns3proxy.keystore-path=" + keyStore + "\ns3proxy.keystore-password=changeit",
                "") , StandardCharsets.UTF_8);
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> cmd = new ArrayList<>(List.of(java, "-Xmx512m", "-XX:TieredStopAtLevel=1",
                "-cp", System.getProperty("java.class.path"), "org.gaul.s3proxy.Main", "--properties", props.toString()));
        process = new ProcessBuilder(cmd).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("s3proxy.log").toFile())).start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IOException("S3Proxy exited with " + process.exitValue() + ": " + log());
            }
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", port), 200);
                return;
            } catch (IOException e) {
                Thread.sleep(100);
            }
        }
        throw new IOException("S3Proxy did not listen on port " + port + " within 60 s: " + log());
    }

    String log() throws IOException {
        Path l = dir.resolve("s3proxy.log");
        if (!Files.exists(l)) {
            return "";
        }
        String s = Files.readString(l, StandardCharsets.UTF_8);
        return s.length() > 4000 ? s.substring(s.length() - 4000) : s;
    }

    public URI endpoint() {
        return URI.create("http://127.0.0.1:" + port);
    }

    long pid() {
        return process.pid();
    }

    /** Kills the server process at once (SIGKILL) and waits until it is gone. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
    }

    /** Freezes the server (SIGSTOP): connections stay open, nothing answers. */
    void freeze() throws IOException, InterruptedException {
        signal("STOP");
    }

    /** Thaws a frozen server (SIGCONT). */
    void thaw() throws IOException, InterruptedException {
        signal("CONT");
    }

    private void signal(String sig) throws IOException, InterruptedException {
        Process p = new ProcessBuilder("kill", "-" + sig, Long.toString(process.pid())).inheritIO().start();
        p.waitFor(10, TimeUnit.SECONDS);
    }

    /** {@return depot options for this server with the test credentials in the environment's place} */
    public S3Options options() {
        return S3Options.defaults(endpoint()).withRegion("us-east-1");
    }

    /** {@return a plain synchronous client with the test credentials, for set-up (buckets)} */
    public S3Client adminClient() {
        return S3Client.builder().endpointOverride(endpoint()).forcePathStyle(true).region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(IDENTITY, CREDENTIAL)))
                .httpClient(software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient.create())
                .build();
    }

    /** Creates a bucket. */
    public void createBucket(String bucket) {
        try (S3Client c = adminClient()) {
            c.createBucket(b -> b.bucket(bucket));
        }
    }

    /** The environment a depotfs child process needs to sign requests with the default credential chain. */
    public static java.util.Map<String, String> credentialsEnvironment() {
        return java.util.Map.of("AWS_ACCESS_KEY_ID", IDENTITY, "AWS_SECRET_ACCESS_KEY", CREDENTIAL, "AWS_REGION", "us-east-1");
    }

    @Override
    public void close() throws InterruptedException {
        if (process != null && process.isAlive()) {
            signalQuietly("CONT");
            process.destroyForcibly();
            process.waitFor(30, TimeUnit.SECONDS);
        }
    }

    private void signalQuietly(String sig) {
        try {
            signal(sig);
        } catch (IOException | InterruptedException e) {
            // best effort
        }
    }
}
