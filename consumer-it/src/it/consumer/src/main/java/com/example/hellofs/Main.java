package com.example.hellofs;

import io.github.purefuse.channel.FuseSession;
import io.github.purefuse.channel.MountOptions;
import io.github.purefuse.kit.path.PathAdapter;
import java.nio.file.Path;

/** Mounts the hello filesystem at the directory given and serves until it is unmounted. */
public final class Main {
    public static void main(String[] args) throws Exception {
        try (FuseSession session = FuseSession.mount(Path.of(args[0]),
                PathAdapter.builder(new Hello()).immutable().build(), MountOptions.defaults())) {
            System.out.println("mounted " + session.mountpoint());
            session.awaitTermination();   // until `umount` or SIGTERM
        }
    }
}
