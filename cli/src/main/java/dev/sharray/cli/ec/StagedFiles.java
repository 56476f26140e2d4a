package dev.sharray.cli.ec;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryIteratorException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * Output files written under temporary names next to their targets and renamed into place only when
 * everything succeeded. Closing without {@link #commit()} deletes every partial file, so a failure (a full
 * disk, a bad shard) leaves the previous state untouched.
 */
final class StagedFiles implements AutoCloseable {
    private final List<Path> temps = new ArrayList<>();
    private final List<Path> targets = new ArrayList<>();
    private final List<FileChannel> channels = new ArrayList<>();
    private boolean committed;
    /** Deletes the partial files when the JVM is stopped (Ctrl-C, SIGTERM) before close() could. */
    private final Thread onExit = new Thread(this::stopAndDeleteTemps, "sharray-staged-files");
    private boolean hooked;
    /** Set by the shutdown hook: the other threads keep running while the JVM stops, so no new file may appear. */
    private boolean stopping;
    private final Mover mover;
    /** Runs after the hook deleted the partial files: removes what else the command made for them (its folders). */
    private final Runnable onStop;

    /** Renames a file over another, atomically. */
    @FunctionalInterface
    interface Mover {
        /** The rename {@link StagedFiles} uses: atomic, replacing the target. */
        Mover ATOMIC = (from, to) -> Files.move(from, to, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);

        void move(Path from, Path to) throws IOException;
    }

    StagedFiles() {
        this(Mover.ATOMIC);
    }

    /** @param mover how files are renamed (tests make it fail half-way) */
    StagedFiles(Mover mover) {
        this(mover, null);
    }

    /**
     * @param onStop when the JVM is stopped before the commit, runs after the partial files are deleted: e.g.
     *               removes the folders the command created for them (a failure without a stop is the
     *               caller's to clean up). The hook is in place from now on, not from the first file.
     */
    StagedFiles(Runnable onStop) {
        this(Mover.ATOMIC, onStop);
        hook();
    }

    private StagedFiles(Mover mover, Runnable onStop) {
        this.mover = mover;
        this.onStop = onStop;
    }

    private synchronized void hook() {
        if (!hooked) {
            Runtime.getRuntime().addShutdownHook(onExit);
            hooked = true;
        }
    }

    /**
     * Creates a new temporary file for {@code target} and opens it for writing.
     *
     * @param target the final path
     * @return a channel on the temporary file
     */
    synchronized FileChannel create(Path target) throws IOException {
        if (stopping) {
            throw new IOException("the JVM is stopping");
        }
        hook();
        removeDeadRunsPartials(target);
        Path temp = target.resolveSibling(partialPrefix(target) + ProcessHandle.current().pid());
        Files.deleteIfExists(temp);
        temps.add(temp);
        targets.add(target);
        FileChannel ch = FileChannel.open(temp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE,
            StandardOpenOption.READ);
        channels.add(ch);
        return ch;
    }

    /**
     * Closes the channels and renames every temporary file over its target, all or nothing: files the
     * targets replace are first renamed aside, and when any rename fails every target is put back as it was
     * (a re-encode with {@code --force} never leaves a mix of the old set's shards and the new one's).
     *
     * @throws IOException when a rename fails; the targets are then as they were before
     */
    synchronized void commit() throws IOException {
        if (stopping) {
            throw new IOException("the JVM is stopping");
        }
        for (FileChannel ch : channels) {
            ch.close();
        }
        for (Path target : targets) {
            if (Files.isDirectory(target, LinkOption.NOFOLLOW_LINKS)) {
                throw new IOException(target + " is a directory"); // a rename would fail on it, or hide it
            }
        }
        final List<Path> asideOf = new ArrayList<>(); // targets whose old file was renamed aside
        int placed = 0;
        try {
            for (Path target : targets) {
                if (Files.exists(target, LinkOption.NOFOLLOW_LINKS)) {
                    mover.move(target, aside(target));
                    asideOf.add(target);
                }
            }
            for (; placed < temps.size(); placed++) {
                mover.move(temps.get(placed), targets.get(placed));
            }
        } catch (IOException | RuntimeException e) {
            rollBack(placed, asideOf, e);
            throw e;
        }
        committed = true;
        for (Path target : asideOf) {
            try {
                Files.deleteIfExists(aside(target));
            } catch (IOException ignored) {
                // the new files are in place; a hidden leftover of the old set does not change that
            }
        }
    }

    /** Undoes a commit that failed: the new files go back to their temporary names, the old ones back in place. */
    private void rollBack(int placed, List<Path> asideOf, Exception cause) {
        for (int i = 0; i < placed; i++) {
            try {
                mover.move(targets.get(i), temps.get(i)); // deleted with the other temporary files on close
            } catch (IOException | RuntimeException e) {
                cause.addSuppressed(e);
            }
        }
        for (Path target : asideOf) {
            try {
                mover.move(aside(target), target);
            } catch (IOException | RuntimeException e) {
                cause.addSuppressed(e);
            }
        }
    }

    private static Path aside(Path target) {
        return target.resolveSibling("." + target.getFileName() + ".replaced-" + ProcessHandle.current().pid());
    }

    /** @return the name of a run's partial file for {@code target}, less the run's pid */
    private static String partialPrefix(Path target) {
        return "." + target.getFileName() + ".partial-";
    }

    /**
     * Deletes the partial files for {@code target} of runs that were killed before they could (kill -9, a power
     * cut: no shutdown hook ran), named with a pid that no live process has. A live pid is left alone: another run
     * writing the same target, or a reused pid. What a killed commit renamed aside ({@code .replaced-<pid>}) is kept:
     * it may be the only copy of the file it replaced.
     */
    private static void removeDeadRunsPartials(Path target) {
        final String prefix = partialPrefix(target);
        final Path folder = target.toAbsolutePath().getParent();
        final long self = ProcessHandle.current().pid();
        try (DirectoryStream<Path> partials = Files.newDirectoryStream(folder,
                p -> p.getFileName().toString().startsWith(prefix))) {
            for (Path p : partials) {
                final String pid = p.getFileName().toString().substring(prefix.length());
                if (!pid.matches("[0-9]{1,18}") || Long.parseLong(pid) == self
                    || ProcessHandle.of(Long.parseLong(pid)).isPresent()
                    || !Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)) {
                    continue;
                }
                Files.deleteIfExists(p);
            }
        } catch (IOException | DirectoryIteratorException e) {
            // an unreadable folder: the create that follows says so, if it matters
        }
    }

    @Override
    public void close() {
        for (FileChannel ch : channels) {
            try {
                ch.close();
            } catch (IOException ignored) {
                // best effort
            }
        }
        if (!committed) {
            deleteTemps();
        }
        if (hooked) {
            try {
                Runtime.getRuntime().removeShutdownHook(onExit);
            } catch (IllegalStateException exiting) {
                // the JVM is already shutting down: the hook runs (and finds nothing left to delete)
            }
            hooked = false;
        }
    }

    private synchronized void stopAndDeleteTemps() {
        stopping = true;
        deleteTemps();
        if (onStop != null && !committed) {
            onStop.run();
        }
    }

    private synchronized void deleteTemps() {
        for (Path t : temps) {
            try {
                Files.deleteIfExists(t); // after a commit, renamed away: nothing to delete
            } catch (IOException ignored) {
                // best effort while failing
            }
        }
    }
}
