package io.github.purefuse.depotfs.store.s3;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import java.net.URI;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;

class ProxySettingTest {
    private static final URI HTTPS = URI.create("https://s3.corp.example:9000");
    private static final URI HTTP = URI.create("http://s3.corp.example:9000");

    @Test
    void httpsProxyOfHttpSchemeIsSpokenToInPlainHttp() {
        // the SDK's own lookup spoke TLS to this proxy, which never answered
        ProxySetting p = ProxySetting.resolve(HTTPS, Map.of("HTTPS_PROXY", "http://proxy:3128"), new Properties());
        assertEquals(new ProxySetting("http", "proxy", 3128, null, null, java.util.Set.of()), p);
    }

    @Test
    void endpointSchemeChoosesTheVariable() {
        Map<String, String> env = Map.of("HTTPS_PROXY", "http://a:1", "http_proxy", "b:2");
        assertEquals("a", ProxySetting.resolve(HTTPS, env, new Properties()).host());
        assertEquals("a", ProxySetting.resolve(null, env, new Properties()).host());
        assertEquals("b", ProxySetting.resolve(HTTP, env, new Properties()).host());
        assertNull(ProxySetting.resolve(HTTPS, Map.of("HTTP_PROXY", "http://b:2"), new Properties()));
        assertNull(ProxySetting.resolve(HTTPS, Map.of(), new Properties()));
    }

    @Test
    void noProxyAndCredentials() {
        ProxySetting p = ProxySetting.resolve(HTTPS,
                Map.of("https_proxy", "http://u:s3cret@proxy:8080", "no_proxy", "localhost, .corp.example,10.0.0.1"),
                new Properties());
        assertEquals("u", p.user());
        assertEquals("s3cret", p.password());
        assertTrue(p.noProxy().containsAll(java.util.Set.of("localhost", "*.corp.example", "corp.example", "10.0.0.1")));
    }

    @Test
    void systemPropertiesComeFirst() {
        Properties props = new Properties();
        props.setProperty("https.proxyHost", "jvmproxy");
        props.setProperty("http.nonProxyHosts", "localhost|*.corp.example");
        ProxySetting p = ProxySetting.resolve(HTTPS, Map.of("HTTPS_PROXY", "http://envproxy:1"), props);
        assertEquals(new ProxySetting("http", "jvmproxy", 443, null, null,
                java.util.Set.of("localhost", "*.corp.example")), p);
    }
}
