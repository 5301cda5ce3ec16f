/**
 * The depot in S3-compatible object storage ({@link io.github.purefuse.depotfs.store.s3.S3Depot}),
 * behind the same {@link io.github.purefuse.depotfs.store.Depot} port as the local depot, on the AWS SDK
 * for Java v2's asynchronous client.
 */
@NullMarked
package io.github.purefuse.depotfs.store.s3;

import org.jspecify.annotations.NullMarked;
