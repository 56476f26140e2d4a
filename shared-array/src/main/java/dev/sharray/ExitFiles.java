package dev.sharray;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Other components' files in this process's folders that a normal JVM exit deletes (a pool's ring, argument and
 * doorbell files of workers): {@link Segments#onExit()} deletes them before it removes the emptied folders, which
 * it could not remove while they were there. Registering and the exit's deletion exclude each other, so a file
 * registered concurrently with the exit is either deleted by it or refused, and then deleted by its creator.
 */
final class ExitFiles {
    private static final Set<Path> FILES = new LinkedHashSet<>();
    /** Set once the exit deleted the files: a file registered later would outlive the process. */
    private static boolean deleted;

    private ExitFiles() {
    }

    /**
     * @param file a file just created, to delete at exit unless {@link #remove}d first
     * @throws IllegalStateException when the exit has already deleted the registered files
     */
    static void add(Path file) {
        try {
            create(file, () -> null);
        } catch (IOException impossible) {
            throw new AssertionError(impossible);
        }
    }

    /**
     * Runs {@code creation} and registers {@code file} under this class's lock, which {@link #deleteAll} takes too: an
     * exit deletes the file or refuses the creation, and cannot run between creating and registering.
     *
     * @throws IllegalStateException when the exit has already deleted the registered files ({@code creation} did not run)
     */
    static <T> T create(Path file, SharedArrays.FileCreation<T> creation) throws IOException {
        Segments.installExitHook(); // outside this class's lock: the hook's thread takes it the other way round
        synchronized (ExitFiles.class) {
            if (deleted) {
                throw new IllegalStateException("cannot have " + file + " deleted at exit: this JVM is exiting, and sharray's"
                    + " shutdown hook has already deleted this process's files");
            }
            final T result = creation.create();
            FILES.add(file);
            return result;
        }
    }

    /** @param file a file deleted (or handed over) otherwise: the exit leaves it alone */
    static synchronized void remove(Path file) {
        FILES.remove(file);
    }

    /** At exit: deletes every registered file and refuses later ones. */
    static void deleteAll() {
        final List<Path> files;
        synchronized (ExitFiles.class) {
            deleted = true;
            files = new ArrayList<>(FILES);
            FILES.clear();
        }
        for (Path f : files) {
            try {
                Files.deleteIfExists(f);
            } catch (IOException | RuntimeException e) {
                // best effort at exit; the reaper removes the folder with it later. A RuntimeException too (a path of a
                // closed zip file system): it ended the hook here, before it released this process's arrays
            }
        }
    }
}
