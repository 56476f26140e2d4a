package dev.sharray.pool;

import dev.sharray.DType;
import dev.sharray.SharedArray;
import dev.sharray.SharedArrays;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class FaultsTest {

    private static List<String> poolFiles() throws IOException {
        try (Stream<Path> s = Files.list(SharedArrays.processFolder())) {
            return s.map(p -> p.getFileName().toString()).filter(n -> n.startsWith("sharray-pool-")).collect(Collectors.toList());
        }
    }

    private static void assertNoChildren() throws InterruptedException {
        for (int i = 0; i < 100 && ProcessHandle.current().children().anyMatch(ProcessHandle::isAlive); i++) {
            Thread.sleep(20);
        }
        assertEquals(List.of(), ProcessHandle.current().children().filter(ProcessHandle::isAlive).map(ProcessHandle::pid)
            .collect(Collectors.toList()));
    }

    @Test
    void killedWorkerFailsOnlyItsTaskAndIsReplaced_20Times() throws Exception {
        final List<String> before = poolFiles();
        final SharedArray data = SharedArray.copyOf(new double[] {1, 2, 3});
        final Path dataFile = data.path();
        // the running task's worker writes its pid here: a task is killed mid-task only once it has started (a
        // worker that dies before reading its task is not running it, and the task runs elsewhere)
        final SharedArray runningPid = SharedArray.copyOf(new long[1]);
        final Path runningPidFile = runningPid.path();
        try (ProcessPool pool = ProcessPool.create(2)) {
            for (int round = 0; round < 20; round++) {
                runningPid.setLong(0, 0);
                // a long task holding a shared array on one worker, a short one beside it
                final CompletableFuture<Long> victim = pool.submit((SharedArray a) -> {
                    a.sum();
                    final long pid = ProcessHandle.current().pid();
                    runningPid.setLong(pid, 0);
                    Thread.sleep(60_000);
                    return pid;
                }, data);
                final long victimPid = awaitRunningPid(runningPid);
                assertTrue(pool.workerPids().contains(victimPid));
                assertEquals(0, Signals.kill9(victimPid));
                final ExecutionException e = assertThrows(ExecutionException.class, () -> victim.get(30, TimeUnit.SECONDS));
                final WorkerCrashedException crash = assertInstanceOf(WorkerCrashedException.class, e.getCause());
                assertEquals(9, crash.signal());
                assertEquals(137, crash.exitCode());
                assertTrue(crash.getMessage().contains("SIGKILL"), crash.getMessage());
                // the pool keeps working, with a replacement
                assertEquals(7, pool.submit((Integer x) -> x + 1, 6).get(30, TimeUnit.SECONDS));
                assertFalse(pool.workerPids().contains(victimPid));
            }
            for (int i = 0; i < 100 && pool.size() < 2; i++) {
                Thread.sleep(50);
            }
            assertEquals(2, pool.size());
        }
        data.close();
        runningPid.close();
        assertFalse(Files.exists(dataFile), "references of killed workers were reclaimed");
        assertFalse(Files.exists(runningPidFile), "references of killed workers were reclaimed");
        assertEquals(before, poolFiles());
        assertNoChildren();
    }

    private static long awaitRunningPid(SharedArray runningPid) throws InterruptedException {
        for (int i = 0; i < 1500; i++) {
            final long pid = runningPid.getLong(0);
            if (pid != 0) {
                return pid;
            }
            Thread.sleep(20);
        }
        throw new AssertionError("the task did not start within 30 s");
    }

    @Test
    void timeoutKillsAndReplacesTheWorker() throws Exception {
        try (ProcessPool pool = ProcessPool.builder().workers(1).taskTimeout(Duration.ofMillis(500)).build()) {
            final long pid = pool.workerPids().get(0);
            final CompletableFuture<Integer> slow = pool.submit((Integer x) -> {
                Thread.sleep(60_000);
                return x;
            }, 1);
            final ExecutionException e = assertThrows(ExecutionException.class, () -> slow.get(30, TimeUnit.SECONDS));
            assertInstanceOf(TaskTimeoutException.class, e.getCause());
            // the replacement JVM is cold: this probe must not be held to the 500 ms default
            assertEquals(5, pool.submit((Integer x) -> x, 5, Duration.ofSeconds(30)).get(30, TimeUnit.SECONDS));
            assertFalse(pool.workerPids().contains(pid));
            assertFalse(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false));
            // a per-task timeout overrides the default
            assertEquals(2, pool.submit((Integer x) -> {
                Thread.sleep(700);
                return x;
            }, 2, Duration.ofSeconds(20)).get(30, TimeUnit.SECONDS));
        }
        assertNoChildren();
    }

    @Test
    void aWorkerWhoseJvmAbortsOnAFatalErrorFailsItsTaskWithThatErrorAndItsReportFile(@org.junit.jupiter.api.io.TempDir Path dir)
            throws Exception {
        // the report goes to this test's folder, not the working directory; no core file whatever the ulimit
        try (ProcessPool pool = ProcessPool.builder().workers(1)
                .jvmOptions("-XX:ErrorFile=" + dir + "/hs_err_%p.log", "-XX:-CreateCoredumpOnCrash").build()) {
            final long pid = pool.workerPids().get(0);
            final ExecutionException e = assertThrows(ExecutionException.class, () -> pool.submit((Integer x) -> {
                org.agrona.UnsafeApi.putLong(null, 16L, 1L); // a write to address 16: SIGSEGV, and the JVM aborts
                return x;
            }, 1).get(60, TimeUnit.SECONDS));
            final WorkerCrashedException crash = assertInstanceOf(WorkerCrashedException.class, e.getCause());
            // before: "worker 1 (pid …) died: exit code 1; no stderr output" (killed by signal 6 (SIGABRT) when it
            // dumps core), the cause only on the console
            assertTrue(crash.jvmFatalError().orElse("").startsWith("SIGSEGV (0xb) at pc="), crash.getMessage());
            final Path report = dir.resolve("hs_err_" + pid + ".log");
            assertEquals(Optional.of(report), crash.errorReport(), crash.getMessage());
            assertTrue(Files.isRegularFile(report));
            assertTrue(crash.getMessage().contains(": exit code 1 after a JVM fatal error: SIGSEGV (0xb) at pc="), crash.getMessage());
            assertTrue(crash.getMessage().contains("(error report " + report + ")"), crash.getMessage());
            assertEquals(3, pool.submit((Integer x) -> x + 1, 2).get(60, TimeUnit.SECONDS), "the pool goes on");
        }
    }

    @Test
    void closeDrainsThenRefusesWork() throws Exception {
        final List<String> before = poolFiles();
        final ProcessPool pool = ProcessPool.create(1);
        final List<Long> pids = pool.workerPids();
        final CompletableFuture<Integer> queued = pool.submit((Integer x) -> {
            Thread.sleep(200);
            return x * 2;
        }, 21);
        final CompletableFuture<Integer> queued2 = pool.submit((Integer x) -> x, 3);
        pool.close();
        assertEquals(42, queued.getNow(-1));
        assertEquals(3, queued2.getNow(-1));
        final IllegalStateException refused = assertThrows(IllegalStateException.class, () -> pool.submit((Integer x) -> x, 1));
        assertTrue(refused.getMessage().contains("closed"));
        assertThrows(IllegalStateException.class, () -> pool.map((Integer x) -> x, List.of(1)));
        // before: a call without tasks returned an empty list, as if the pool were open
        assertThrows(IllegalStateException.class, () -> pool.map((Integer x) -> x, List.of()));
        pool.close(); // idempotent
        for (long pid : pids) {
            assertFalse(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false));
        }
        assertEquals(before, poolFiles());
        assertNoChildren();
    }

    /**
     * A closed pool refuses a call before it encodes the call's function and arguments: it copied a large heap argument
     * into shared memory first, and refused an argument no reducer handles with a ReducerException.
     */
    @Test
    void aClosedPoolRefusesACallBeforeEncodingItsArguments() {
        final ProcessPool pool = ProcessPool.create(1);
        pool.close();
        final Object noReducer = new Object();
        final IllegalStateException submitted = assertThrows(IllegalStateException.class,
            () -> pool.submit((Object x) -> 1, noReducer));
        assertTrue(submitted.getMessage().contains("closed"), submitted.getMessage());
        final IllegalStateException mapped = assertThrows(IllegalStateException.class,
            () -> pool.map((Object x) -> 1, List.of(noReducer)));
        assertTrue(mapped.getMessage().contains("closed"), mapped.getMessage());
        // mapChunks before it makes its views: 2^40 chunks of an empty array's rows were refused as too many
        try (SharedArray rowsOnly = SharedArray.create(DType.FLOAT64, 1L << 40, 0)) {
            final IllegalStateException chunked = assertThrows(IllegalStateException.class,
                () -> pool.mapChunks(rowsOnly, 1, a -> 1));
            assertTrue(chunked.getMessage().contains("closed"), chunked.getMessage());
        }
    }

    @Test
    @org.junit.jupiter.api.Timeout(30)
    void shutdownNowKillsRunningAndQueuedTasks() throws Exception {
        final ProcessPool pool = ProcessPool.create(1);
        final java.nio.file.Path started = java.nio.file.Files.createTempFile("sharray-running", ".mark");
        java.nio.file.Files.delete(started);
        final String marker = started.toString();
        final CompletableFuture<Integer> running = pool.submit((Integer x) -> {
            java.nio.file.Files.createFile(java.nio.file.Path.of(marker));
            Thread.sleep(60_000);
            return x;
        }, 1);
        final CompletableFuture<Integer> queued = pool.submit((Integer x) -> x, 2);
        // the first task really runs: shutdownNow must kill it, not just dequeue it
        for (int i = 0; i < 2000 && !java.nio.file.Files.exists(started); i++) {
            Thread.sleep(10);
        }
        assertTrue(java.nio.file.Files.exists(started), "the first task started");
        java.nio.file.Files.delete(started);
        pool.shutdownNow(); // kills: does not wait for the 60 s task (this test's 30 s timeout would fail)
        assertThrows(CancellationException.class, running::join);
        assertThrows(CancellationException.class, queued::join);
        assertThrows(IllegalStateException.class, () -> pool.submit((Integer x) -> x, 1));
        assertNoChildren();
    }

    @Test
    @org.junit.jupiter.api.Timeout(60)
    void poolWhoseReplacementsCannotStartFailsTasksInsteadOfHanging() throws Exception {
        // a worker JVM cannot start once its log folder is gone: the first one starts, every replacement fails
        final Path logs = Files.createTempDirectory("sharray-worker-logs");
        final ProcessPool pool = ProcessPool.builder().workers(1)
            .jvmOptions("-Xlog:disable", "-Xlog:gc:file=" + logs.resolve("gc.log")).build();
        // the task writes its worker's pid here once running: killed before reading it, the worker would not
        // fail the task as a crash, but leave it queued for a replacement that cannot start
        final SharedArray runningPid = SharedArray.copyOf(new long[1]);
        try {
            assertEquals(3, pool.submit((Integer x) -> x + 1, 2).get(30, TimeUnit.SECONDS));
            Files.delete(logs.resolve("gc.log"));
            Files.delete(logs);
            final CompletableFuture<Long> victim = pool.submit((Integer x) -> {
                runningPid.setLong(ProcessHandle.current().pid(), 0);
                Thread.sleep(60_000);
                return ProcessHandle.current().pid();
            }, 0);
            assertEquals(0, Signals.kill9(awaitRunningPid(runningPid))); // the only worker: it holds the task
            final ExecutionException crash = assertThrows(ExecutionException.class, () -> victim.get(30, TimeUnit.SECONDS));
            assertInstanceOf(WorkerCrashedException.class, crash.getCause());
            for (int i = 0; i < 3; i++) { // queued while the replacement is tried, then after it gave up
                final ExecutionException e = assertThrows(ExecutionException.class,
                    () -> pool.submit((Integer x) -> x, 1).get(30, TimeUnit.SECONDS));
                final IllegalStateException cause = assertInstanceOf(IllegalStateException.class, e.getCause());
                assertTrue(cause.getMessage().startsWith("no worker could be started: "), cause.getMessage());
            }
            assertEquals(0, pool.size());
        } finally {
            pool.close();
            runningPid.close();
        }
        assertNoChildren();
    }
}
