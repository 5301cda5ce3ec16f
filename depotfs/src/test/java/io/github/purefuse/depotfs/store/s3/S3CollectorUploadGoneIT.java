package io.github.purefuse.depotfs.store.s3;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.purefuse.depotfs.it.S3ProxyServer;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.NoSuchUploadException;

/**
 * An unfinished upload a gc listed and that is gone when it aborts it (its writer completed or aborted it
 * meanwhile: the server answers NoSuchUpload) is what the gc wanted: the gc goes on and ends {@code done}.
 */
class S3CollectorUploadGoneIT {
    private static final String BUCKET = "depot-gc-gone";

    @TempDir
    Path tmp;

    @Test
    void anUploadGoneBeforeItsAbortDoesNotFailTheGc() throws Exception {
        try (S3ProxyServer server = S3ProxyServer.signed(tmp, BUCKET);
             S3Depot d = S3Depot.openOrCreate(S3Location.parse("s3://" + BUCKET + "/gone"), server.options());
             S3Client admin = server.adminClient()) {
            d.setRoot("r", null, d.putBundle(List.of()).hash());
            String key = "gone/objects/00/" + "0".repeat(62);
            String id = admin.createMultipartUpload(r -> r.bucket(BUCKET).key(key)).uploadId();
            admin.uploadPart(r -> r.bucket(BUCKET).key(key).uploadId(id).partNumber(1), RequestBody.fromString("part\n"));
            S3AsyncClient real = d.client();
            // The writer ends its upload just before the gc's abort reaches the server
            S3AsyncClient racing = (S3AsyncClient) Proxy.newProxyInstance(S3AsyncClient.class.getClassLoader(),
                    new Class<?>[] {S3AsyncClient.class}, (p, m, args) -> {
                        if (m.getName().equals("abortMultipartUpload")) {
                            admin.abortMultipartUpload(r -> r.bucket(BUCKET).key(key).uploadId(id));
                            // as AWS S3 and S3Mock answer it (S3Proxy's filesystem store answers 204)
                            return CompletableFuture.failedFuture(NoSuchUploadException.builder().statusCode(404)
                                    .message("The specified multipart upload does not exist.").build());
                        }
                        try {
                            return m.invoke(real, args);
                        } catch (InvocationTargetException e) {
                            throw e.getCause();
                        }
                    });
            new S3Collector(d, racing, S3Location.parse("s3://" + BUCKET + "/gone"), Duration.ZERO, false).run();
            String state = admin.getObjectAsBytes(r -> r.bucket(BUCKET).key("gone/gc")).asUtf8String();
            assertTrue(state.startsWith("done "), "the gc finished: " + state);
            assertTrue(admin.listMultipartUploads(r -> r.bucket(BUCKET).prefix("gone/")).uploads().isEmpty());
        }
    }
}
