package dev.sharray;

import java.nio.file.Path;
import java.util.function.Consumer;

/** Lets the pool's tests set {@link RefCountFile}'s test hooks (package-private). */
public final class RefCountFileHooks {
    private RefCountFileHooks() {
    }

    /** @param hook runs before a reference file is read or mapped (null: none) */
    public static void beforeAccess(Consumer<Path> hook) {
        RefCountFile.beforeAccess = hook;
    }
}
