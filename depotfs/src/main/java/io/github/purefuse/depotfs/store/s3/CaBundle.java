package io.github.purefuse.depotfs.store.s3;

import io.github.purefuse.depotfs.store.DepotException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.util.Collection;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import org.jspecify.annotations.Nullable;
import software.amazon.awssdk.profiles.ProfileFile;
import software.amazon.awssdk.profiles.ProfileFileSystemSetting;

/**
 * The CA certificates an {@code https} endpoint's certificate is checked against, found where the AWS CLI finds them:
 * {@code AWS_CA_BUNDLE}, else {@code ca_bundle} in the active profile ({@code AWS_PROFILE}, else {@code default}) of
 * the AWS config file ({@code AWS_CONFIG_FILE}, else {@code ~/.aws/config}). A PEM file of one or more certificates;
 * as for the AWS CLI, they replace the JDK's trusted CAs. The AWS SDK for Java reads neither setting; the NETTY
 * client is given them as its trust managers, and the CRT client cannot take them (it trusts the system's store and
 * {@code SSL_CERT_FILE}), so a configured bundle makes NETTY the default client, unless it is the system's own
 * store ({@link #isSystemStore()}), which CRT trusts anyway.
 *
 * @param file   the PEM file
 * @param source where it was named, for messages ({@code AWS_CA_BUNDLE}, {@code ca_bundle of profile NAME})
 */
public record CaBundle(Path file, String source) {

    /**
     * {@return the bundle the environment and the AWS config file name, or null when neither does}
     *
     * @param env the environment ({@code AWS_CA_BUNDLE})
     */
    public static @Nullable CaBundle find(Map<String, String> env) {
        return find(env, CaBundle::profileSetting);
    }

    static @Nullable CaBundle find(Map<String, String> env, Supplier<Optional<CaBundle>> profile) {
        String named = env.get("AWS_CA_BUNDLE");
        if (named != null && !named.isBlank()) {
            return new CaBundle(Path.of(named.strip()), "AWS_CA_BUNDLE");
        }
        return profile.get().orElse(null);
    }

    /** The {@code ca_bundle} of the active profile, read as the SDK reads the config file (unreadable: none). */
    private static Optional<CaBundle> profileSetting() {
        try {
            String name = ProfileFileSystemSetting.AWS_PROFILE.getStringValue().orElse("default");
            return ProfileFile.defaultProfileFile().profile(name).flatMap(p -> p.property("ca_bundle"))
                    .filter(v -> !v.isBlank())
                    .map(v -> new CaBundle(Path.of(v.strip().replaceFirst("^~(?=/)", System.getProperty("user.home"))),
                            "ca_bundle of profile " + name));
        } catch (RuntimeException unreadable) {   // a malformed config file: the credential chain will say so
            return Optional.empty();
        }
    }

    /**
     * The system's own CA bundles (Debian/Ubuntu, RHEL/Fedora, SUSE, Alpine/macOS-style): the store the CRT client
     * trusts anyway. Images and shells that trust the system store everywhere set {@code AWS_CA_BUNDLE} to one of
     * them (with {@code SSL_CERT_FILE}, {@code REQUESTS_CA_BUNDLE}, ...).
     */
    private static final java.util.List<Path> SYSTEM_STORES = java.util.List.of(
            Path.of("/etc/ssl/certs/ca-certificates.crt"), Path.of("/etc/pki/tls/certs/ca-bundle.crt"),
            Path.of("/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem"), Path.of("/etc/ssl/ca-bundle.pem"),
            Path.of("/etc/ssl/cert.pem"));

    /**
     * {@return whether the bundle is the system's own CA store (the same file, through any link), which the CRT
     * client trusts without being told: no reason to leave it for NETTY}
     */
    public boolean isSystemStore() {
        try {
            Path real = file.toRealPath();
            for (Path p : SYSTEM_STORES) {
                if (Files.exists(p) && p.toRealPath().equals(real)) {
                    return true;
                }
            }
        } catch (IOException | RuntimeException e) {
            // not there: not the system's
        }
        return false;
    }

    /** A PEM certificate block; what lies between blocks (text, keys) is not a certificate. */
    private static final java.util.regex.Pattern CERTIFICATE_BLOCK =
            java.util.regex.Pattern.compile("-----BEGIN CERTIFICATE-----[^-]*-----END CERTIFICATE-----");

    /**
     * {@return trust managers that trust the bundle's certificates and no others}
     *
     * @throws DepotException if the file cannot be read or holds no certificate, with the setting that named it
     */
    public TrustManager[] trustManagers() throws DepotException {
        Collection<? extends Certificate> certificates;
        try {
            byte[] bytes = Files.readAllBytes(file);
            // Only the CERTIFICATE blocks, as OpenSSL (the AWS CLI, curl) reads a bundle: a private key or other
            // PEM block beside them (a combined key and certificate file) is skipped, not taken for a certificate
            java.util.regex.Matcher blocks = CERTIFICATE_BLOCK.matcher(new String(bytes, java.nio.charset.StandardCharsets.ISO_8859_1));
            StringBuilder only = new StringBuilder();
            while (blocks.find()) {
                only.append(blocks.group()).append('\n');
            }
            try (InputStream in = new java.io.ByteArrayInputStream(only.isEmpty() ? bytes
                    : only.toString().getBytes(java.nio.charset.StandardCharsets.ISO_8859_1))) {
                certificates = CertificateFactory.getInstance("X.509").generateCertificates(in);
            }
        } catch (IOException e) {
            throw new DepotException(DepotException.Reason.INVALID, source + " " + file + ": cannot read it (" + e + ")");
        } catch (GeneralSecurityException e) {
            throw new DepotException(DepotException.Reason.INVALID, source + " " + file + ": not a PEM file of certificates (" + e.getMessage() + ")");
        }
        if (certificates.isEmpty()) {
            throw new DepotException(DepotException.Reason.INVALID, source + " " + file + ": no certificate in it (a PEM file of CA certificates"
                    + " is expected)");
        }
        try {
            KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
            store.load(null, null);
            int i = 0;
            for (Certificate c : certificates) {
                store.setCertificateEntry("ca-" + i++, c);
            }
            TrustManagerFactory f = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            f.init(store);
            return f.getTrustManagers();
        } catch (GeneralSecurityException | IOException e) {
            throw new DepotException(DepotException.Reason.INVALID, source + " " + file + ": " + e.getMessage());
        }
    }
}
