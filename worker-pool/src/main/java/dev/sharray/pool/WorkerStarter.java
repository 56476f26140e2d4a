package dev.sharray.pool;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Function;

/**
 * Brings worker JVMs into a pool: creates each one's ring file, launches its JVM, waits for its HELLO, and
 * removes every trace of a worker that never joins. Launching and waiting are separate steps, so a pool
 * can start all its JVMs before it waits for the first.
 */
final class WorkerStarter {
    private static final long START_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(60);

    private final Path folder;
    private final String poolName;
    private final WorkerLauncher launcher;
    private final int ringCapacity;
    private final PrintStream out;
    private final PrintStream err;
    private final AtomicInteger workerSeq = new AtomicInteger();
    /** Whether the pool closed and stopped waiting for starting workers: one still starting must leave nothing behind. */
    private final BooleanSupplier poolClosed;
    /** Whether the pool is being killed ({@code shutdownNow}): waiting for a worker's HELLO stops. */
    private final BooleanSupplier poolKilled;

    WorkerStarter(Path folder, String poolName, WorkerLauncher launcher, int ringCapacity, PrintStream out,
                  PrintStream err, BooleanSupplier poolClosed, BooleanSupplier poolKilled) {
        this.folder = folder;
        this.poolName = poolName;
        this.launcher = launcher;
        this.ringCapacity = ringCapacity;
        this.out = out;
        this.err = err;
        this.poolClosed = poolClosed;
        this.poolKilled = poolKilled;
    }

    /**
     * Creates a worker's ring file and starts its JVM, without waiting for it.
     *
     * @param results where the worker's answers go once the pool polls its result ring
     * @throws UncheckedIOException when the ring file or the process cannot be created (nothing is left behind)
     */
    Worker launch(Function<Worker, Frames.Sink> results) {
        final int id = workerSeq.incrementAndGet();
        final Path ringPath = folder.resolve(poolName + "-worker-" + id + ".ring");
        RingFile rings = null;
        Process p = null;
        try {
            WorkerLauncher.ensureFolder(folder);
            try {
                rings = RingFile.create(ringPath, ringCapacity);
            } catch (IOException e) {
                // "No space left on device" alone does not say which folder (by default one the user never named)
                throw new IOException("cannot write its ring file " + ringPath + " (" + RingFile.fileSize(ringCapacity)
                    + " bytes): " + e.getMessage(), e);
            }
            p = launcher.launch(id, ringPath);
            final Path damaged = launcher.takeDamagedArchive();
            if (damaged != null) {
                err.println("[" + poolName + "] the workers' class-data archive " + damaged + " was damaged (its bytes"
                    + " differ from the checksum written with it): deleted; worker " + id + " starts without it");
            }
            final String prefix = "[" + poolName + " worker-" + id + "] ";
            final Worker w = new Worker(id, p,
                rings,
                new OutputForwarder(p.getInputStream(), prefix, out, poolName + "-worker-" + id + "-out"),
                new OutputForwarder(p.getErrorStream(), prefix, err, poolName + "-worker-" + id + "-err"));
            w.resultSink = results.apply(w);
            return w;
        } catch (IOException | RuntimeException e) {
            // each step on its own: one's failure (out of descriptors, a class it loads) must neither hide why the start
            // failed nor leave the others' process, file or mapping behind
            final Process started = p;
            final RingFile made = rings;
            if (started != null) {
                cleanUp(e, () -> {
                    started.destroyForcibly();
                    Worker.awaitExit(started);
                });
            }
            if (made != null) {
                cleanUp(e, made::unlink);
                cleanUp(e, made::close);
            }
            cleanUp(e, () -> launcher.deleteArgFile(id));
            if (e instanceof IOException) {
                // the reason in the message: a replacement's failure is reported by this message alone
                throw new UncheckedIOException("cannot start worker " + id + ": " + e.getMessage(), (IOException) e);
            }
            throw (RuntimeException) e;
        }
    }

    /** Runs one step of a failed start's clean-up; its own failure is added to {@code failure}'s suppressed. */
    private static void cleanUp(Throwable failure, Runnable step) {
        try {
            step.run();
        } catch (RuntimeException | LinkageError e) {
            failure.addSuppressed(e);
        }
    }

    /**
     * Waits for the worker's HELLO, then removes its ring and argument files (both sides have them open: they
     * must not outlive a crash). A worker that died at start with the workers' class-data archive mapped is
     * relaunched once without it (the archive is dropped: a damaged one crashes every JVM that maps it), and so is
     * one that died at start training it (a JVM that cannot dump one refuses to start so). One killed from outside
     * (SIGKILL, SIGTERM) is relaunched once as it was.
     *
     * @param w       the launched worker
     * @param results as for {@link #launch}, for a relaunch
     * @return the worker that said hello: {@code w}, or its relaunch
     * @throws IllegalStateException when the worker dies, takes over a minute, or the pool closes first; the
     *         worker is then killed and its files and mappings removed
     */
    Worker awaitHello(Worker w, Function<Worker, Frames.Sink> results) {
        // a worker that died at start is an IllegalStateException to the caller, as any other failure to start: it
        // used to be thrown as a private subclass, whose name a caller of ProcessPool's build() saw and could not use
        final String died = awaitHelloOnce(w);
        if (died == null) {
            return w;
        }
        final Worker relaunched;
        if (killedFromOutside(w.exitCode())) {
            // not the archive's doing nor the start's: the archive stays (it was deleted and turned off for a day),
            // and the pool builds (build() failed) - soak review 50
            launcher.archiveNotAtFault(w.id);
            requirePoolOpen(died);
            relaunched = launch(results);
            err.println("[" + poolName + "] worker " + w.id + " was killed while starting (" + died + "); worker "
                + relaunched.id + " starts in its place");
        } else {
            final Path mapped = launcher.dropArchiveAfterFailedStart(w.id);
            final Path training = mapped == null ? launcher.trainerDiedAtStart(w.id) : null;
            if (mapped == null && training == null) {
                throw new IllegalStateException(died);
            }
            requirePoolOpen(died);
            relaunched = launch(results);
            err.println("[" + poolName + "] worker " + w.id + (mapped != null
                ? " died at start with the class-data archive " + mapped + " mapped (" + died + "); the archive is"
                + " deleted,"
                : " died at start while training the class-data archive " + training + " (" + died + ");")
                + " and worker " + relaunched.id + " starts without it");
        }
        final String diedAgain = awaitHelloOnce(relaunched);
        if (diedAgain != null) {
            throw new IllegalStateException(diedAgain);
        }
        return relaunched;
    }

    /** Refuses a relaunch once the pool closed or was killed: the next wait would kill the new worker at once. */
    private void requirePoolOpen(String died) {
        if (poolClosed.getAsBoolean() || poolKilled.getAsBoolean()) {
            throw new IllegalStateException(died);
        }
    }

    /**
     * @return whether a process's exit code says a SIGKILL or SIGTERM ended it (128 + the signal's number): sent from
     *     outside, as a JVM's own failures end it with an exit code or SIGABRT after its error report
     */
    static boolean killedFromOutside(int exitCode) {
        return exitCode == 128 + 9 || exitCode == 128 + 15;
    }

    /**
     * Waits for {@code w}'s HELLO.
     *
     * @return null when it said hello; what happened when its process ended before (not killed by the pool): the
     *     worker is then abandoned
     * @throws IllegalStateException when it takes over a minute, or the pool closes or is killed first
     */
    private String awaitHelloOnce(Worker w) {
        final long deadline = System.nanoTime() + START_TIMEOUT_NANOS;
        final boolean[] hello = new boolean[1];
        final Frames.Sink sink = (buffer, offset, length) -> {
            if (length >= Protocol.HELLO_LENGTH && buffer.getByte(offset) == Protocol.HELLO) {
                w.maxHeapBytes = buffer.getLong(offset + 9, java.nio.ByteOrder.LITTLE_ENDIAN);
                hello[0] = true;
            }
        };
        final Idler idler = Idler.forPolling();
        while (!hello[0]) {
            if (poolClosed.getAsBoolean()) {
                abandon(w); // the pool no longer waits for this thread: nothing of this worker may outlive it
                throw new IllegalStateException("the pool closed while worker " + w.id + " was starting");
            }
            if (!w.process.isAlive() || System.nanoTime() - deadline > 0 || poolKilled.getAsBoolean()) {
                final boolean died = !w.process.isAlive();
                final String exit = w.process.isAlive() ? "none: timed out" : String.valueOf(w.process.exitValue());
                abandon(w); // also waits for the last lines of its output
                // the JVM says some start-up failures ("Too small maximum heap") on stdout, not stderr
                final String message = "worker " + w.id + " failed to start (exit code " + exit
                    + "); last stderr lines: " + w.stderr.tail() + "; last stdout lines: " + w.stdout.tail();
                if (died && !poolKilled.getAsBoolean()) {
                    return message;
                }
                throw new IllegalStateException(message);
            }
            idler.idle(w.reader.poll(sink, 1));
        }
        launcher.archiveNotAtFault(w.id);
        w.rings.unlink();
        launcher.deleteArgFile(w.id);
        return null;
    }

    /** Kills a worker that never joined the pool and removes its files and mappings. */
    void abandon(Worker w) {
        // through its handle: Process.destroyForcibly also closes the output pipes, and of a worker that had died at
        // start before the forwarders read its last lines (a bad JVM option ends it in ~15 ms) they lost the reason
        // (about 1 start in 20); the forwarders close the pipes at their end
        w.process.toHandle().destroyForcibly();
        w.awaitExit();
        exited(w);
        w.stderr.awaitEnd(1000);
        w.stdout.awaitEnd(1000);
        w.closeStdin();
        w.rings.unlink();
        launcher.deleteArgFile(w.id);
        w.unmap();
    }

    /** A worker's process has ended (or is being killed): a class-data archive trainer gives up its role. */
    void exited(Worker w) {
        launcher.workerExited(w.id, w.exitCode(), () -> {
            w.stderr.awaitEnd(1000);
            return w.stderr.tail();
        });
    }
}
