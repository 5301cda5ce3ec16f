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
}
