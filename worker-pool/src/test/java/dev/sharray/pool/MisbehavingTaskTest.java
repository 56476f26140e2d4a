package dev.sharray.pool;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Functions that misbehave inside their worker JVM in ways that touch the worker itself (its standard streams,
 * its thread, its exit): each task gets what a demanding user expects from the Javadoc, and the pool goes on.
 */
class MisbehavingTaskTest {
    private static ProcessPool pool;

    @BeforeAll
    static void start() {
        pool = ProcessPool.builder().workers(1).build();
    }

    @AfterAll
    static void stop() {
        pool.close();
    }

    /** Bounds a task that, before a fix, never ended: it fails with a TaskTimeoutException instead (close() drains). */
    private static final Duration HANG = Duration.ofSeconds(10);

    private static <T> T get(Future<T> f) throws Exception {
        return f.get(60, TimeUnit.SECONDS);
    }

    /**
     * @return the workers once one has run a task: a test before this one may have ended its worker, whose
     *     replacement is then still starting (not yet listed)
     */
    private static List<Long> settledWorkers() throws Exception {
        assertEquals(1, get(pool.submit((Integer x) -> x, 1)));
        return pool.workerPids();
    }

    @Test
    void aTaskReadingSystemInSeesAnEmptyStreamNotThePoolsControlPipe() throws Exception {
        final List<Long> workers = settledWorkers();
        // before: System.in was the worker's stdin, the parent's doorbell pipe: read() blocked until the next
        // doorbell (forever, with nothing else sent), and available() waited behind the watch thread's read
        assertEquals(0, get(pool.submit((Integer x) -> {
            try {
                return System.in.available();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }, 1, HANG)));
        assertEquals(-1, get(pool.submit((Integer x) -> {
            try {
                return System.in.read();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }, 1, HANG)));
        assertEquals(List.of(2, 3), pool.map((Integer x) -> x + 1, List.of(1, 2)));
        assertEquals(workers, pool.workerPids(), "no worker died");
    }

    @Test
    void aTaskThatLeavesItsThreadInterruptedDoesNotInterruptTheNextOne() throws Exception {
        final List<Long> workers = settledWorkers();
        assertEquals(true, get(pool.submit((Integer x) -> {
            Thread.currentThread().interrupt();
            return Thread.currentThread().isInterrupted();
        }, 1)));
        // before: the flag stayed on the worker's thread: the next task found it set (and its first sleep threw),
        // and the idle worker's parks returned at once, a busy spin
        assertEquals(false, get(pool.submit((Integer x) -> Thread.currentThread().isInterrupted(), 1)));
        assertEquals(workers, pool.workerPids(), "no worker died");
    }

    @Test
    void aWorkerPrintingMegabytesWithoutANewlineIsForwardedInBoundedPieces() throws Exception {
        final LongestLine console = new LongestLine();
        final PrintStream err = System.err;
        final ProcessPool own;
        System.setErr(new PrintStream(console, true)); // the pool forwards worker stderr to System.err as built
        try {
            own = ProcessPool.builder().workers(1).build();
        } finally {
            System.setErr(err);
        }
        try (own) {
            final int bytes = 16 << 20;
            final ExecutionException e = assertThrows(ExecutionException.class, () -> get(own.submit((Integer x) -> {
                final byte[] z = new byte[1 << 20];
                Arrays.fill(z, (byte) 'z');
                for (int i = 0; i < bytes >> 20; i++) {
                    System.err.write(z, 0, z.length);
                }
                System.err.flush();
                System.exit(3);
                return x;
            }, 1)));
            final WorkerCrashedException crash = assertInstanceOf(WorkerCrashedException.class, e.getCause());
            // before: the forwarder read the 16 MiB as one line, held it, kept it as a "last stderr line", and put it
            // in this message; a worker printing more than the parent's heap without a newline killed the forwarding
            // thread with an OutOfMemoryError (the worker's next print then blocked on the full pipe)
            for (String line : crash.lastStderrLines()) {
                assertTrue(line.length() <= OutputForwarder.MAX_LINE_BYTES, "a kept line of " + line.length() + " chars");
            }
            assertTrue(crash.getMessage().length() < 200_000, "a crash message of " + crash.getMessage().length() + " chars");
            assertEquals(2, get(own.submit((Integer x) -> x + 1, 1)), "the pool goes on");
        }
        assertTrue(console.longest <= OutputForwarder.MAX_LINE_BYTES + 100, "a forwarded line of " + console.longest + " bytes");
        assertTrue(console.total >= 16 << 20, "all of it was forwarded: " + console.total + " bytes");
    }

    @Test
    void aLongLineIsCutBetweenCharactersAndItsLineEndsAreKept() {
        final String euros = "\u20ac".repeat(5000); // 15000 bytes of 3-byte characters
        final byte[] text = (euros + "\r\nnext\rlast").getBytes(StandardCharsets.UTF_8);
        final OutputForwarder f = new OutputForwarder(new ByteArrayInputStream(text), "",
            new PrintStream(OutputStream.nullOutputStream()), "forwarder-test");
        f.awaitEnd(10_000);
        final List<String> lines = f.tail();
        assertEquals(euros, lines.get(0) + lines.get(1), "no character split, nothing lost");
        assertTrue(lines.get(0).getBytes(StandardCharsets.UTF_8).length <= OutputForwarder.MAX_LINE_BYTES);
        assertEquals(List.of("next", "last"), lines.subList(2, 4));
    }

    @Test
    void theIncubatorWarningEveryWorkerPrintsIsNotForwarded() {
        final byte[] text = ("WARNING: Using incubator modules: jdk.incubator.vector\nfrom the task\n").getBytes(StandardCharsets.UTF_8);
        final java.io.ByteArrayOutputStream forwarded = new java.io.ByteArrayOutputStream();
        final OutputForwarder f = new OutputForwarder(new ByteArrayInputStream(text), "[w] ",
            new PrintStream(forwarded, true, StandardCharsets.UTF_8), "forwarder-test");
        f.awaitEnd(10_000);
        assertEquals("[w] from the task" + System.lineSeparator(), forwarded.toString(StandardCharsets.UTF_8));
        assertEquals(List.of("from the task"), f.tail());
    }

    @Test
    void aNonDaemonThreadATaskLeftRunningDoesNotKeepItsWorkerFromAnOrderlyExit(@TempDir Path dir) throws Exception {
        final String marker = dir.resolve("hooks-ran").toString();
        try (ProcessPool own = ProcessPool.builder().workers(1).build()) {
            assertEquals(1, get(own.submit((Integer x) -> {
                final Thread spinner = new Thread(() -> {
                    while (true) {
                        try {
                            Thread.sleep(60_000);
                        } catch (InterruptedException ignored) {
                            // keep running
                        }
                    }
                }, "user-non-daemon");
                spinner.start();
                Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                    try {
                        Files.createFile(Path.of(marker));
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                }));
                return x;
            }, 1)));
        }
        // before: at STOP the worker's main returned, but the JVM waited for the user's thread; close() waited out
        // its 5 s grace per worker and killed it with SIGKILL, so no shutdown hook ran (nor the worker's own releases)
        assertTrue(Files.exists(Path.of(marker)), "the worker exited through its shutdown hooks");
    }

    /** A security manager that forbids exiting the JVM, and allows everything else. */
    @SuppressWarnings("removal")
    public static final class NoExit extends SecurityManager {
        @Override
        public void checkPermission(java.security.Permission p) {
            if (p instanceof RuntimePermission && p.getName().startsWith("exitVM")) {
                throw new SecurityException("no exit");
            }
        }
    }

    @Test
    @SuppressWarnings("removal")
    void aTaskCannotInstallASecurityManagerInItsWorker() throws Exception {
        try (ProcessPool own = ProcessPool.builder().workers(1).build()) {
            final List<Long> workers = own.workerPids();
            final ExecutionException e = assertThrows(ExecutionException.class, () -> get(own.submit((Integer x) -> {
                System.setSecurityManager(new NoExit());
                return x;
            }, 1)));
            // before (JDK 17, where a security manager may still be installed at run time): the task succeeded, and
            // one that forbids exiting made the worker immortal: System.exit and Runtime.halt threw, so a worker
            // whose parent was killed (kill -9) ran on as an orphan for good, and one told to stop ended only
            // because no other thread kept it alive
            final RemoteTaskException remote = assertInstanceOf(RemoteTaskException.class, e.getCause());
            assertEquals("java.lang.UnsupportedOperationException", remote.remoteClassName(), remote.getMessage());
            assertEquals(2, get(own.submit((Integer x) -> x + 1, 1)), "the pool goes on");
            assertEquals(workers, own.workerPids(), "no worker died");
        }
    }

    @Test
    void aTaskThatExitsWhileAShutdownHookBlocksFailsAsACrashInsteadOfHanging() throws Exception {
        try (ProcessPool own = ProcessPool.builder().workers(1).jvmOptions("-D" + WorkerMain.EXIT_GRACE_PROPERTY + "=500")
                .build()) {
            final ExecutionException e = assertThrows(ExecutionException.class, () -> get(own.submit((Integer x) -> {
                Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                    while (true) {
                        try {
                            Thread.sleep(60_000);
                        } catch (InterruptedException ignored) {
                            // keep blocking
                        }
                    }
                }));
                System.exit(0);
                return x;
            }, 1, HANG)));
            // before: System.exit blocked in the hook for good, the worker neither answered nor died, and the task hung
            // (here until its timeout; without one, and close() with it, forever)
            final WorkerCrashedException crash = assertInstanceOf(WorkerCrashedException.class, e.getCause());
            assertEquals(WorkerMain.EXIT_HALTED, crash.exitCode(), crash.getMessage());
            assertTrue(crash.getMessage().contains("shutdown hooks still running"), crash.getMessage());
            assertEquals(2, get(own.submit((Integer x) -> x + 1, 1)), "the pool goes on");
        }
    }

    @Test
    void aFatalErrorBannerATaskPrintedForAnotherProcessIsNotReportedAsItsWorkersCrash() throws Exception {
        // what a task may print: a child JVM's output, or an old hs_err report
        assertEquals(1, get(pool.submit((Integer x) -> {
            System.out.println(String.join("\n", "#", "# A fatal error has been detected by the Java Runtime Environment:",
                "#", "#  SIGSEGV (0xb) at pc=0x00007f0000001234, pid=1, tid=2", "#", "# Problematic frame:",
                "# C  [libother.so+0x1234]", "#", "# An error report file with more information is saved as:",
                "# /tmp/hs_err_pid1.log", "#"));
            return x;
        }, 1)));
        final ExecutionException e = assertThrows(ExecutionException.class, () -> get(pool.submit((Integer x) -> {
            System.exit(3);
            return x;
        }, 1)));
        final WorkerCrashedException crash = assertInstanceOf(WorkerCrashedException.class, e.getCause());
        // before: "died: exit code 3 after a JVM fatal error: SIGSEGV (0xb) ... pid=1 ... (error report /tmp/hs_err_pid1.log)"
        assertEquals(Optional.empty(), crash.jvmFatalError(), crash.getMessage());
        assertEquals(Optional.empty(), crash.errorReport(), crash.getMessage());
        assertEquals(3, crash.exitCode());
    }

    /** Counts what is written to it, and the longest line. */
    private static final class LongestLine extends OutputStream {
        long total;
        long longest;
        private long current;

        @Override
        public synchronized void write(int b) {
            total++;
            current = b == '\n' ? 0 : current + 1;
            longest = Math.max(longest, current);
        }

        @Override
        public synchronized void write(byte[] b, int off, int len) {
            for (int i = off; i < off + len; i++) {
                write(b[i]);
            }
        }
    }
}
