package io.github.purefuse.depotfs.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import io.github.purefuse.depotfs.cli.DepotfsCli;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Role credentials as clusters hand them out: Kubernetes IRSA (AWS_ROLE_ARN + AWS_WEB_IDENTITY_TOKEN_FILE and
 * nothing else), and a profile with {@code role_arn} and {@code source_profile}. The SDK's chain swaps them for
 * temporary credentials with STS, through the {@code sts} module that it loads by reflection: the CLI runs here in
 * its own JVM on the class path {@code bin/depotfs} uses ({@code target/runtime.classpath}; the tests' own holds
 * {@code sts} through S3Proxy), with only the environment a pod or a user would give it. One loopback server
 * plays STS (its POSTs) and S3 (everything else: "no such bucket").
 */
class S3RoleCredentialsIT {

    @TempDir
    Path tmp;

    private final List<String> stsActions = new CopyOnWriteArrayList<>();
    private final List<String> sessionTokens = new CopyOnWriteArrayList<>();

    private HttpServer fakeAws() throws Exception {
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", ex -> {
            String body = new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            byte[] answer;
            int status;
            if (ex.getRequestMethod().equals("POST") && body.contains("Action=AssumeRole")) {
                String action = body.contains("Action=AssumeRoleWithWebIdentity") ? "AssumeRoleWithWebIdentity" : "AssumeRole";
                stsActions.add(action);
                status = 200;
                answer = ("<" + action + "Response xmlns=\"https://sts.amazonaws.com/doc/2011-06-15/\"><" + action + "Result>"
                        + "<Credentials><AccessKeyId>ASIAROLE</AccessKeyId><SecretAccessKey>role-secret</SecretAccessKey>"
                        + "<SessionToken>TOKEN-FROM-" + action + "</SessionToken><Expiration>2099-01-01T00:00:00Z</Expiration>"
                        + "</Credentials></" + action + "Result></" + action + "Response>").getBytes(StandardCharsets.UTF_8);
            } else {
                sessionTokens.add(String.valueOf(ex.getRequestHeaders().getFirst("x-amz-security-token")));
                status = 404;
                answer = "<Error><Code>NoSuchBucket</Code><Message>no</Message></Error>".getBytes(StandardCharsets.UTF_8);
            }
            boolean head = ex.getRequestMethod().equals("HEAD");
            ex.getResponseHeaders().set("Content-Type", "text/xml");
            ex.sendResponseHeaders(status, head ? -1 : answer.length);
            if (!head) {
                ex.getResponseBody().write(answer);
            }
            ex.close();
        });
        server.start();
        return server;
    }

    /** Runs {@code depotfs ls} of a bucket of the fake server as bin/depotfs would, with only {@code env} of AWS's. */
    private String ls(String url, Map<String, String> env) throws Exception {
        Path target = Path.of("target");
        Path jar;
        try (Stream<Path> s = Files.list(target)) {
            jar = s.filter(p -> p.getFileName().toString().matches("depotfs-.*\\.jar")
                            && !p.getFileName().toString().contains("sources") && !p.getFileName().toString().contains("javadoc"))
                    .findFirst().orElseThrow();
        }
        String classPath = jar + ":" + Files.readString(target.resolve("runtime.classpath")).strip();
        List<String> cmd = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java"),
                "--enable-native-access=ALL-UNNAMED", "-cp", classPath, DepotfsCli.class.getName(),
                "ls", "--depot", "s3://nobucket/x", "--endpoint", url));
        if (Runtime.version().feature() >= 23) {
            cmd.add(1, "--sun-misc-unsafe-memory-access=allow");
        }
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().keySet().removeIf(k -> k.startsWith("AWS_"));
        pb.environment().put("HOME", tmp.toString());
        pb.environment().put("AWS_EC2_METADATA_DISABLED", "true");
        pb.environment().put("AWS_REGION", "us-east-1");
        pb.environment().put("AWS_ENDPOINT_URL_STS", url);
        pb.environment().putAll(env);
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        return out;
    }

    @Test
    void webIdentityAndRoleProfilesGetCredentialsFromSts() throws Exception {
        HttpServer server = fakeAws();
        try {
            String url = "http://127.0.0.1:" + server.getAddress().getPort();
            String noBucket = "depotfs: no bucket 'nobucket' (s3://nobucket/x at " + url + ")\n";

            Path token = Files.writeString(tmp.resolve("token"), "eyJhbGciOiJSUzI1NiJ9.e30.c2ln");
            assertEquals(noBucket, ls(url, Map.of("AWS_ROLE_ARN", "arn:aws:iam::123456789012:role/lab",
                    "AWS_WEB_IDENTITY_TOKEN_FILE", token.toString())), "IRSA");
            assertEquals(List.of("AssumeRoleWithWebIdentity"), stsActions);
            assertEquals("TOKEN-FROM-AssumeRoleWithWebIdentity", sessionTokens.getLast(), "S3 requests carry STS's token");

            Path config = Files.writeString(tmp.resolve("config"), """
                    [profile lab]
                    role_arn = arn:aws:iam::123456789012:role/lab
                    source_profile = base
                    [profile base]
                    aws_access_key_id = AKIDBASE
                    aws_secret_access_key = base-secret
                    """);
            assertEquals(noBucket, ls(url, Map.of("AWS_CONFIG_FILE", config.toString(), "AWS_PROFILE", "lab")),
                    "a profile with role_arn");
            assertEquals(List.of("AssumeRoleWithWebIdentity", "AssumeRole"), stsActions);
            assertEquals("TOKEN-FROM-AssumeRole", sessionTokens.getLast());
        } finally {
            server.stop(0);
        }
    }
}
