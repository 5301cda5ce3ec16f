package io.github.purefuse.depotfs.store.s3;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.purefuse.depotfs.store.DepotException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CaBundleTest {

    private static final CaBundle FROM_PROFILE = new CaBundle(Path.of("/etc/profile-ca.pem"), "ca_bundle of profile default");

    @Test
    void awsCaBundleWinsOverTheProfile() {
        CaBundle b = CaBundle.find(Map.of("AWS_CA_BUNDLE", " /etc/env-ca.pem "), () -> Optional.of(FROM_PROFILE));
        assertEquals(new CaBundle(Path.of("/etc/env-ca.pem"), "AWS_CA_BUNDLE"), b);
    }

    @Test
    void theProfileNamesItWhenTheEnvironmentDoesNot() {
        assertEquals(FROM_PROFILE, CaBundle.find(Map.of("AWS_CA_BUNDLE", " "), () -> Optional.of(FROM_PROFILE)));
        assertNull(CaBundle.find(Map.of(), Optional::empty));
    }

    @Test
    void aFileWithoutCertificatesIsRefusedWithItsSetting(@TempDir Path dir) throws Exception {
        Path empty = Files.writeString(dir.resolve("empty.pem"), "");
        DepotException e = assertThrows(DepotException.class, () -> new CaBundle(empty, "AWS_CA_BUNDLE").trustManagers());
        assertTrue(e.getMessage().startsWith("AWS_CA_BUNDLE " + empty + ": "), e.getMessage());
        Path missing = dir.resolve("missing.pem");
        e = assertThrows(DepotException.class, () -> new CaBundle(missing, "ca_bundle of profile x").trustManagers());
        assertTrue(e.getMessage().startsWith("ca_bundle of profile x " + missing + ": cannot read it"), e.getMessage());
    }

    /** A bundle that also holds a private key (a combined key and certificate file) is read as OpenSSL reads it. */
    @Test
    void aPrivateKeyBesideTheCertificatesIsSkipped(@TempDir Path dir) throws Exception {
        Path ks = dir.resolve("ks.p12");
        Path cert = dir.resolve("ca.pem");
        String keytool = Path.of(System.getProperty("java.home"), "bin", "keytool").toString();
        for (String[] cmd : new String[][] {
                {keytool, "-genkeypair", "-keyalg", "RSA", "-alias", "ca", "-dname", "CN=test-ca", "-keystore", ks.toString(),
                        "-storetype", "PKCS12", "-storepass", "changeit", "-validity", "2"},
                {keytool, "-exportcert", "-rfc", "-alias", "ca", "-keystore", ks.toString(), "-storepass", "changeit",
                        "-file", cert.toString()}}) {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            String said = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            assertEquals(0, p.waitFor(), said);
        }
        String key = "-----BEGIN PRIVATE KEY-----\n" + java.util.Base64.getMimeEncoder(64, new byte[] {'\n'})
                .encodeToString(new byte[600]) + "\n-----END PRIVATE KEY-----\n";
        Path keyFirst = Files.writeString(dir.resolve("key-first.pem"), key + Files.readString(cert));
        Path keyLast = Files.writeString(dir.resolve("key-last.pem"), "CA\n==\n" + Files.readString(cert) + key);
        for (Path bundle : new Path[] {keyFirst, keyLast}) {
            javax.net.ssl.X509TrustManager tm = (javax.net.ssl.X509TrustManager) new CaBundle(bundle, "AWS_CA_BUNDLE")
                    .trustManagers()[0];
            assertEquals(1, tm.getAcceptedIssuers().length, bundle.toString());
        }
    }

    @Test
    void theSystemsOwnStoreIsToldApartFromAPrivateBundle(@TempDir Path dir) throws Exception {
        Path system = Path.of("/etc/ssl/certs/ca-certificates.crt");
        assertTrue(Files.exists(system), "Debian's store: the package ca-certificates (bin/setup installs it)");
        assertTrue(new CaBundle(system, "AWS_CA_BUNDLE").isSystemStore());
        Path link = Files.createSymbolicLink(dir.resolve("link.pem"), system);
        assertTrue(new CaBundle(link, "AWS_CA_BUNDLE").isSystemStore(), "through a link");
        Path copy = Files.copy(system, dir.resolve("copy.pem"));
        assertTrue(!new CaBundle(copy, "AWS_CA_BUNDLE").isSystemStore(), "a file of one's own, even with the same bytes");
        assertTrue(!new CaBundle(dir.resolve("missing.pem"), "AWS_CA_BUNDLE").isSystemStore());
    }
}
