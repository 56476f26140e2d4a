package dev.sharray.pool;

import java.nio.file.Path;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Names of the files the workers' cache folder holds while they are written (class-data archives, their seals,
 * worker jars): each is written under a private name beside its target and renamed into place, and
 * {@link ClassDataArchive#prune} deletes the ones a crashed writer left by this name.
 */
final class CacheFiles {
    /** Follows the target's name in a file being written: {@code <target>.tmp-<pid>-<random>}. */
    static final String WRITING = ".tmp-";

    private CacheFiles() {
    }

    /**
     * @param target the file to write
     * @return a name beside it that no other writer, in this process or another, uses
     */
    static Path writingName(Path target) {
        return target.resolveSibling(target.getFileName() + WRITING + ProcessHandle.current().pid() + "-"
            + Long.toHexString(ThreadLocalRandom.current().nextLong()));
    }
}
