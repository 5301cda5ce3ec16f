package io.github.purefuse.depotfs.store.s3;

import java.net.URI;

/**
 * A process that takes an S3 depot's root-update lock and holds it until it is stopped, for
 * {@link S3LockIT}: {@code ENDPOINT s3://BUCKET/PREFIX keep|release [REFRESH_MS]} ({@code keep}: as a
 * collection does once it begins to remove; the lock rewritten every {@code REFRESH_MS}, else every 15 s).
 * Prints {@code locked} once it holds the lock; credentials come from the environment.
 */
final class LockHolderMain {
    private LockHolderMain() {
    }

    public static void main(String[] args) throws Exception {
        S3Depot depot = S3Depot.openOrCreate(S3Location.parse(args[1]),
                S3Options.defaults(URI.create(args[0])).withRegion("us-east-1"));
        S3Depot.HeldLock lock = args.length > 3
                ? depot.lockRootUpdates("gc", java.time.Duration.ofMillis(Long.parseLong(args[3])))
                : depot.lockRootUpdates("gc");
        if (args[2].equals("keep")) {
            lock.keepOnExit();
        }
        System.out.println("locked");
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }
}
