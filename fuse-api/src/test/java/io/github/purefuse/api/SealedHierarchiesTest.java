package io.github.purefuse.api;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.github.purefuse.api.reply.AttrReply;
import io.github.purefuse.api.reply.FuseReply;
import io.github.purefuse.api.reply.GetxattrReply;
import io.github.purefuse.api.reply.ListxattrReply;
import io.github.purefuse.api.reply.LookupReply;
import io.github.purefuse.api.reply.LseekReply;
import io.github.purefuse.api.reply.OpenReply;
import io.github.purefuse.api.reply.PollReply;
import io.github.purefuse.api.reply.ReaddirReply;
import io.github.purefuse.api.reply.ReadlinkReply;
import io.github.purefuse.api.reply.ReadReply;
import io.github.purefuse.api.reply.StatfsReply;
import io.github.purefuse.api.reply.StatusReply;
import io.github.purefuse.api.request.FuseRequest;
import java.util.Arrays;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The permitted types of the public sealed interfaces, pinned. Consumers switch over them exhaustively (the
 * Javadoc of {@link FuseRequest} says to), so a type added to a {@code permits} list breaks their code: it stops
 * compiling, and code built before throws {@code MatchException}. japicmp, the build's API check, does not look at
 * {@code permits} and lets such a change through (a release trial added a request record to 0.1.1: BUILD SUCCESS).
 * Changing this list is a deliberate break: a new minor version before 1.0, a major one after, said in
 * CHANGELOG.md.
 */
class SealedHierarchiesTest {

    private static final Map<Class<?>, String> PERMITTED = Map.ofEntries(
            Map.entry(FuseRequest.class, "Access Flush Fsync Fsyncdir Getattr Getxattr Listxattr Lookup Lseek Open"
                    + " Opendir Poll Read Readdir Readdirplus Readlink Release Releasedir Statfs Statx"),
            Map.entry(FuseReply.class, "AttrReply GetxattrReply ListxattrReply LookupReply LseekReply OpenReply"
                    + " PollReply ReadReply ReaddirReply ReadlinkReply StatfsReply StatusReply"),
            Map.entry(GetxattrReply.class, "Failure XattrValue"),
            Map.entry(LookupReply.class, "Entry Failure NegativeEntry"),
            Map.entry(PollReply.class, "Failure PollEvents"),
            Map.entry(ReadlinkReply.class, "Failure LinkTarget"),
            Map.entry(StatfsReply.class, "Failure Statistics"),
            Map.entry(ReadReply.class, "Data Failure FileRange"),
            Map.entry(StatusReply.class, "Failure Ok"),
            Map.entry(LseekReply.class, "Failure SeekOffset"),
            Map.entry(ListxattrReply.class, "Failure XattrNames"),
            Map.entry(OpenReply.class, "Failure Opened"),
            Map.entry(AttrReply.class, "Attributes Failure"),
            Map.entry(ReaddirReply.class, "Failure PageReady"));

    @Test
    void thePermittedTypesOfEverySealedInterfaceAreThoseReleased() {
        for (Map.Entry<Class<?>, String> e : PERMITTED.entrySet()) {
            String now = Arrays.stream(e.getKey().getPermittedSubclasses()).map(Class::getSimpleName).sorted()
                    .collect(Collectors.joining(" "));
            assertEquals(e.getValue(), now, e.getKey().getSimpleName() + ": a new permitted type breaks consumers'"
                    + " exhaustive switches (see this class); if it is meant, update this list and say so in CHANGELOG.md");
        }
    }
}
