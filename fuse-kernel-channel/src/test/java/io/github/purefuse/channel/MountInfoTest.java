package io.github.purefuse.channel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class MountInfoTest {
    @Test
    void parsesAFuseLineWithEscapedSpaces() {
        MountInfo m = MountInfo.parse("612 28 0:52 / /tmp/my\\040mount rw,nosuid,nodev,relatime shared:1 - fuse.hello "
                + "hello\\040fs ro,user_id=0,group_id=0,default_permissions");
        assertEquals(612, m.mountId());
        assertEquals("0:52", m.device());
        assertEquals(52, m.minor());
        assertEquals("/tmp/my mount", m.mountPoint());
        assertEquals("fuse.hello", m.fsType());
        assertEquals("hello fs", m.source());
    }

    @Test
    void parsesALineWithoutOptionalFields() {
        MountInfo m = MountInfo.parse("36 35 98:0 /mnt1 /mnt2 rw,noatime - ext3 /dev/root rw,errors=continue");
        assertEquals("/mnt2", m.mountPoint());
        assertEquals("98:0", m.device());
    }

    @Test
    void unescapesEveryEscapeTheKernelWritesAndLeavesTheRest() {
        assertEquals("a b\tc\nd\\e", MountInfo.unescape("a\\040b\\011c\\012d\\134e"));
        assertEquals("caf\u00e9 x", MountInfo.unescape("caf\u00e9\\040x"), "UTF-8 bytes around an escape");
        assertEquals("plain\\9", MountInfo.unescape("plain\\9"), "not an octal escape");
    }

    @Test
    void refusesGarbage() {
        assertNull(MountInfo.parse("not a mountinfo line"));
    }

    @Test
    void theRootIsAlwaysAMountPoint() throws Exception {
        assertEquals("/", MountInfo.at(Path.of("/")).orElseThrow().mountPoint());
    }
}
