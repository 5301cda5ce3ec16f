package io.github.purefuse.depotfs.store.s3;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.core.interceptor.SdkExecutionAttribute;

/**
 * The HTTP requests a depot's client sent, by S3 operation ({@code GetObject}, {@code HeadObject},
 * {@code ListObjectsV2}, {@code PutObject}, …): every attempt counts, a retry too. One per client, as an SDK
 * interceptor, so no call site counts on its own; {@code depotfs mount --stats} reports them as
 * {@code s3Requests}.
 */
final class RequestCounts implements ExecutionInterceptor {

    private final ConcurrentHashMap<String, LongAdder> byOperation = new ConcurrentHashMap<>();

    @Override
    public void beforeTransmission(Context.BeforeTransmission context, ExecutionAttributes attributes) {
        String operation = attributes.getAttribute(SdkExecutionAttribute.OPERATION_NAME);
        byOperation.computeIfAbsent(operation == null ? "unknown" : operation, k -> new LongAdder()).increment();
    }

    /** {@return the requests sent so far by operation name, sorted by name} */
    Map<String, Long> snapshot() {
        Map<String, Long> out = new TreeMap<>();
        byOperation.forEach((op, n) -> out.put(op, n.sum()));
        return out;
    }
}
