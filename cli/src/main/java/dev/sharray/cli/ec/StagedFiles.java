package dev.sharray.cli.ec;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
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
        if (!hooked) {
            Runtime.getRuntime().addShutdownHook(onExit);
            hooked = true;
        }
        Path temp = target.resolveSibling("." + target.getFileName() + ".partial-" + ProcessHandle.current().pid());
        Files.deleteIfExists(temp);
        temps.add(temp);
        targets.add(target);
        FileChannel ch = FileChannel.open(temp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE,
            StandardOpenOption.READ);
        channels.add(ch);
        return ch;
    }

    /** Closes the channels and renames every temporary file over its target. */
    void commit() throws IOException {
        for (FileChannel ch : channels) {
            ch.close();
        }
        for (int i = 0; i < temps.size(); i++) {
            Files.move(temps.get(i), targets.get(i), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        }
        committed = true;
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
