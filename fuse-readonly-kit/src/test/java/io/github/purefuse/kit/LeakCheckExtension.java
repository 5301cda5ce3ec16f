package io.github.purefuse.kit;

import io.netty.util.LeakPresenceDetector;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Fails a test class that leaves a pooled Netty buffer unreleased: registered for every Jupiter test class
 * (auto-detection, see junit-platform.properties), it calls {@link LeakPresenceDetector#check()} after
 * the class. The build sets {@code io.netty.customResourceLeakDetector} to the presence detector.
 */
public final class LeakCheckExtension implements AfterAllCallback {
    @Override
    public void afterAll(ExtensionContext context) {
        LeakPresenceDetector.check();
    }
}
