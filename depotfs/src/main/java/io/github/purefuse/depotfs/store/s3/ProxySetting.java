package io.github.purefuse.depotfs.store.s3;

import java.net.URI;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The HTTP proxy to reach an S3 endpoint through, found as curl and the AWS CLI find it: for an https
 * endpoint (AWS S3 included) {@code https.proxyHost} ({@code DEPOTFS_JAVA_OPTS}), else {@code HTTPS_PROXY} or
 * {@code https_proxy}; for an http one {@code http.proxyHost}, else {@code http_proxy} or {@code HTTP_PROXY};
 * hosts that bypass it from {@code http.nonProxyHosts} or {@code NO_PROXY}/{@code no_proxy}. The SDK's own
 * lookup is not used: it connects to the proxy with TLS whenever the endpoint is https, so an
 * {@code HTTPS_PROXY=http://proxy:3128} (the usual kind) never answers.
 *
 * @param scheme   how to talk to the proxy itself ({@code http} or {@code https})
 * @param host     the proxy's host
 * @param port     the proxy's port
 * @param user     the proxy's user name, if any
 * @param password the proxy's password, if any
 * @param noProxy  host patterns reached directly ({@code *.example.com})
 */
record ProxySetting(String scheme, String host, int port, @Nullable String user, @Nullable String password,
        Set<String> noProxy) {

    /** {@return the proxy for {@code endpoint} (null: AWS S3, https), or null when none is set} */
    static @Nullable ProxySetting resolve(@Nullable URI endpoint, Map<String, String> env, Properties props) {
        boolean https = endpoint == null || !"http".equalsIgnoreCase(endpoint.getScheme());
        String p = https ? "https" : "http";
        Set<String> noProxy = new LinkedHashSet<>();
        String propHost = props.getProperty(p + ".proxyHost");
        if (propHost != null && !propHost.isBlank()) {
            int port = parsePort(props.getProperty(p + ".proxyPort"), https ? 443 : 80);
            String non = props.getProperty("http.nonProxyHosts");
            if (non != null) {
                Arrays.stream(non.split("\\|")).map(String::strip).filter(s -> !s.isEmpty()).forEach(noProxy::add);
            }
            return new ProxySetting("http", propHost.strip(), port, null, null, Set.copyOf(noProxy));
        }
        String value = https ? first(env, "HTTPS_PROXY", "https_proxy") : first(env, "http_proxy", "HTTP_PROXY");
        if (value == null) {
            return null;
        }
        URI u = URI.create(value.contains("://") ? value : "http://" + value);
        if (u.getHost() == null) {
            throw new IllegalArgumentException((https ? "HTTPS_PROXY" : "HTTP_PROXY") + " is not a proxy URL: " + value);
        }
        String scheme = u.getScheme().toLowerCase(java.util.Locale.ROOT);
        int port = u.getPort() > 0 ? u.getPort() : "https".equals(scheme) ? 443 : 80;
        String user = null;
        String password = null;
        if (u.getUserInfo() != null) {
            int colon = u.getUserInfo().indexOf(':');
            user = colon < 0 ? u.getUserInfo() : u.getUserInfo().substring(0, colon);
            password = colon < 0 ? null : u.getUserInfo().substring(colon + 1);
        }
        String non = first(env, "NO_PROXY", "no_proxy");
        if (non != null) {
            for (String h : non.split(",")) {
                h = h.strip();
                if (h.isEmpty()) {
                    continue;
                }
                // curl's ".example.com" and "example.com" both cover the subdomains
                String bare = h.startsWith(".") ? h.substring(1) : h;
                noProxy.add(bare);
                if (!bare.equals("*") && !Character.isDigit(bare.charAt(bare.length() - 1))) {
                    noProxy.add("*." + bare);
                }
            }
        }
        return new ProxySetting(scheme, u.getHost(), port, user, password, Set.copyOf(noProxy));
    }

    private static @Nullable String first(Map<String, String> env, String a, String b) {
        String v = env.get(a);
        if (v == null || v.isBlank()) {
            v = env.get(b);
        }
        return v == null || v.isBlank() ? null : v.strip();
    }

    private static int parsePort(@Nullable String s, int dflt) {
        try {
            return s == null || s.isBlank() ? dflt : Integer.parseInt(s.strip());
        } catch (NumberFormatException e) {
            return dflt;
        }
    }
}
