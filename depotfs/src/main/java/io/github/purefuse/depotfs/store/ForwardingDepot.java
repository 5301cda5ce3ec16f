package io.github.purefuse.depotfs.store;

import java.io.IOException;
import java.util.Optional;
import java.util.SortedMap;

/**
 * A {@link Depot} that forwards every call to another one: the base of decorators (the read-path check,
 * the local cache, the tests' fault injection), which override only what they change.
 */
public abstract class ForwardingDepot implements Depot {

    /** The depot calls are forwarded to. */
    protected final Depot delegate;

    /**
     * Wraps a depot.
     *
     * @param delegate the depot calls are forwarded to; closing this closes it
     */
    protected ForwardingDepot(Depot delegate) {
        this.delegate = delegate;
    }

    /**
     * {@return the first depot of type {@code type} in the chain that starts at {@code depot} and goes
     * through forwarding depots' delegates (the store under the cache and the check), if any}
     *
     * @param depot where to start
     * @param type  what to look for
     * @param <D>   its type
     */
    public static <D extends Depot> java.util.Optional<D> find(Depot depot, Class<D> type) {
        for (Depot d = depot; ; d = ((ForwardingDepot) d).delegate) {
            if (type.isInstance(d)) {
                return java.util.Optional.of(type.cast(d));
            }
            if (!(d instanceof ForwardingDepot)) {
                return java.util.Optional.empty();
            }
        }
    }

    @Override
    public SortedMap<String, Hash> roots() throws IOException {
        return delegate.roots();
    }

    @Override
    public SortedMap<String, String> brokenRoots() throws IOException {
        return delegate.brokenRoots();
    }

    @Override
    public Optional<Hash> root(String name) throws IOException {
        return delegate.root(name);
    }

    @Override
    public Bundle bundle(Hash hash) throws IOException {
        return delegate.bundle(hash);
    }

    /**
     * Forwards to the delegate's (which refuses a manifest of another size unread): a subclass that overrides
     * {@link #bundle(Hash)} overrides this one too, or requests with a parent entry bypass it.
     */
    @Override
    public Bundle bundle(Hash hash, long expectedSize) throws IOException {
        return delegate.bundle(hash, expectedSize);
    }

    @Override
    public @org.jspecify.annotations.Nullable Bundle loadedBundle(Hash hash) {
        return delegate.loadedBundle(hash);
    }

    @Override
    public Optional<BundleEntry> stat(Hash bundle, String name) throws IOException {
        return delegate.stat(bundle, name);
    }

    @Override
    public DepotObject open(Hash hash, long size) throws IOException {
        return delegate.open(hash, size);
    }

    @Override
    public Optional<ChunkSums> chunkSums(Hash object, long size) throws IOException {
        return delegate.chunkSums(object, size);
    }

    @Override
    public boolean remote() {
        return delegate.remote();
    }

    @Override
    public String describe() {
        return delegate.describe();
    }

    @Override
    public void close() throws IOException {
        delegate.close();
    }
}
