package dev.sharray.pool;

import dev.sharray.Loggers;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Says once per process why the pool's cache folder goes unused. Workers then start from the command line without a
 * class-data archive: everything still works, only each start is slower, which the user would otherwise never learn
 * the reason of (a umask-002 home makes the cache folder group-writable, which {@code NativeFiles.requireSafeFolder}
 * refuses).
 */
final class CacheFolderNotice {
    private static final AtomicBoolean TOLD = new AtomicBoolean();

    private CacheFolderNotice() {
    }

    /**
     * @param folder the cache folder
     * @param what   what the pool would have kept there ("a launch jar", "a class-data archive")
     * @param cause  why it cannot
     */
    static void unusable(Path folder, String what, Exception cause) {
        if (TOLD.compareAndSet(false, true)) {
            // the logger only now: SLF4J's start-up is not worth paying in every pool
            Loggers.get("dev.sharray.pool").warn("worker JVMs start slower, without {} from {}: {}",
                what, folder, cause.getMessage());
        }
    }
}
