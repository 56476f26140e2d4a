package dev.sharray.pool;

import dev.sharray.pool.MapFunctionCacheTest.Factor;
import dev.sharray.pool.MapFunctionCacheTest.FactorReducer;
import dev.sharray.reducers.Reducers;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * While a long task runs, the parent's result thread sleeps on its doorbell instead of polling the result
 * rings, and the worker that answers wakes it: for a plain result, for a result longer than the ring (the
 * worker waits for room a sleeping parent would never make), and a task's deadline still ends the sleep.
 */
class ResultDoorbellTest {

    /** Runs long tasks until the result thread has its doorbell (bound off the result thread after ~0.2 s of polling). */
    private static void awaitDoorbell(ProcessPool pool) throws Exception {
        for (int i = 0; i < 100 && !pool.resultDoorbellBound(); i++) {
            assertEquals(20, sleepTask(pool, 20, null).get(30, TimeUnit.SECONDS));
        }
        assertTrue(pool.resultDoorbellBound(), "the result doorbell was bound");
    }

    /** @return a task that sleeps {@code ms} and answers it, with {@code timeout} (null: the pool's default) */
    private static CompletableFuture<Integer> sleepTask(ProcessPool pool, int ms, Duration timeout) {
        final RemoteFunction<Integer, Integer> sleep = t -> {
            Thread.sleep(t);
            return t;
        };
        return timeout == null ? pool.submit(sleep, ms) : pool.submit(sleep, ms, timeout);
    }

    @Test
    @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD) // a ring that does not wake fails here
    void aRingEndsTheWaitAndClosingCleansUp(@TempDir Path dir) throws Exception {
        final Path socket = dir.resolve("pool.bell");
        final ResultDoorbell bell = ResultDoorbell.open(socket);
        // as every file of the pool (it was the umask's 0755: the soak review)
        assertEquals("rw-------", java.nio.file.attribute.PosixFilePermissions.toString(
            java.nio.file.Files.getPosixFilePermissions(socket)));
        final DoorbellRinger ringer = new DoorbellRinger(socket);
        try {
            bell.await(10_000_000); // nothing rang: returns after its timeout
            ringer.ring();
            bell.await(TimeUnit.MINUTES.toNanos(10)); // accepts the connection; its byte may come with it
            bell.await(TimeUnit.MINUTES.toNanos(10)); // ... or wakes this one: either way no 10-minute sleep
        } finally {
            ringer.close();
        }
        bell.close();
        bell.close(); // idempotent: stop() and a failed wait may both close it
        assertFalse(Files.exists(socket), "the socket file is removed");
        // a worker ringing a closed doorbell gives up quietly (the parent polls instead)
        final DoorbellRinger late = new DoorbellRinger(socket);
        late.ring();
        late.ring();
        late.close();
        // a socket path past the kernel's limit is refused with an exception, not a crash
        assertThrows(IOException.class, () -> ResultDoorbell.open(dir.resolve("x".repeat(120))));
    }

    /**
     * A doorbell that fails while the pool runs is bound again at the same path: a worker whose ring failed had
     * given up on it for good, so the parent, counting fewer connected workers than it has, kept its sleeps short
     * for the pool's life (diff review 47). The ringer now tries again after a back-off.
     */
    @Test
    @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aRingerWhoseDoorbellFailedConnectsToTheOneBoundAgain(@TempDir Path dir) throws Exception {
        final Path socket = dir.resolve("pool.bell");
        final ResultDoorbell first = ResultDoorbell.open(socket);
        try (DoorbellRinger ringer = new DoorbellRinger(socket)) {
            ringer.ring();
            awaitConnected(first, 1);
            first.close(); // the old doorbell fails and goes
            ringer.ring(); // a ring into the closed connection fails: the ringer backs off
            ringer.ring();
            final long boundAgain = System.nanoTime();
            final ResultDoorbell second = ResultDoorbell.open(socket);
            try {
                while (System.nanoTime() - boundAgain < DoorbellRinger.RETRY_MIN_NANOS + 100_000_000L) {
                    ringer.ring(); // a worker rings at each answer the sleeping parent waits for
                    second.await(20_000_000);
                }
                awaitConnected(second, 1);
            } finally {
                second.close();
            }
        }
    }

    private static void awaitConnected(ResultDoorbell bell, int workers) throws IOException {
        for (int i = 0; i < 100 && bell.connectedWorkers() < workers; i++) {
            bell.await(10_000_000);
        }
        assertEquals(workers, bell.connectedWorkers(), "connected workers");
    }

    @Test
    @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void connectionsThatHangUpOrSendJunkDoNotSilenceTheDoorbell(@TempDir Path dir) throws Exception {
        final Path socket = dir.resolve("pool.bell");
        final ResultDoorbell bell = ResultDoorbell.open(socket);
        try {
            // one client hangs up at once, another sends 64 KiB of junk and then hangs up
            SocketChannel.open(UnixDomainSocketAddress.of(socket)).close();
            try (SocketChannel junk = SocketChannel.open(UnixDomainSocketAddress.of(socket))) {
                junk.configureBlocking(false);
                final ByteBuffer b = ByteBuffer.allocate(64 << 10);
                while (b.hasRemaining()) {
                    junk.write(b);
                    bell.await(1_000_000); // the doorbell drains while the junk arrives
                }
            }
            for (int i = 0; i < 5; i++) {
                bell.await(50_000_000); // takes in both connections, their bytes and their ends
            }
            // a worker that connects now is still heard, ring after ring: were the listening socket closed, the
            // ringer could not connect and these waits would sleep 10 minutes
            try (DoorbellRinger ringer = new DoorbellRinger(socket)) {
                ringer.ring();
                bell.await(TimeUnit.MINUTES.toNanos(10)); // the connection
                bell.await(TimeUnit.MINUTES.toNanos(10)); // its byte
                for (int i = 0; i < 3; i++) {
                    ringer.ring();
                    bell.await(TimeUnit.MINUTES.toNanos(10));
                }
            }
        } finally {
            bell.close();
        }
    }

    @Test
    @Timeout(60)
    void theParentSleepsWhileALongTaskRuns() throws Exception {
        try (ProcessPool pool = ProcessPool.create(1)) {
            awaitDoorbell(pool);
            final CompletableFuture<Integer> task = sleepTask(pool, 3000, null);
            Thread.sleep(500);
            final long before = ContextSwitches.voluntary(ProcessHandle.current().pid());
            Thread.sleep(1000);
            final long woke = ContextSwitches.voluntary(ProcessHandle.current().pid()) - before;
            // polling with parks of up to 0.1 ms woke the result thread ~10,000 times a second; asleep on the
            // doorbell it wakes at most ~200 times a second (its shortest guard, 5 ms), the JVM's other threads a few more
            assertTrue(woke < 2000, "the parent's threads woke " + woke + " times in 1 s while a task ran");
            assertEquals(3000, task.get(30, TimeUnit.SECONDS));
        }
    }

    @Test
    @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD) // a parent never rung would hang
    void theWorkerWakesASleepingParent() throws Exception {
        // without the worker's ring the result thread would sleep 10 minutes before looking at the rings
        try (ProcessPool pool = ProcessPool.builder().workers(2).resultSleep(Duration.ofMinutes(10))
            .ringCapacity(64 << 10).build()) {
            awaitDoorbell(pool);
            for (int i = 0; i < 5; i++) {
                assertEquals(List.of(i, i + 1), pool.map((Integer x) -> {
                    Thread.sleep(30);
                    return x;
                }, List.of(i, i + 1)));
            }
            // a result 16 times the ring: the worker waits for room, which only an awake parent makes
            final String big = pool.submit((Integer n) -> {
                Thread.sleep(30);
                return "y".repeat(n);
            }, 1 << 20).get(30, TimeUnit.SECONDS);
            assertEquals(1 << 20, big.length());
        }
    }

    /**
     * Groups of short tasks, each with a group queued behind it: the result thread sleeps while they run, and a
     * worker rings only at the end of a message. A ring missed would leave the call waiting out the 10-minute guard.
     */
    @Test
    @Timeout(value = 120, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void theParentSleepsWhileGroupsRunAndEachGroupsEndWakesIt() throws Exception {
        try (ProcessPool pool = ProcessPool.builder().workers(2).resultSleep(Duration.ofMinutes(10)).build()) {
            awaitDoorbell(pool);
            pool.tasksPerMessage(16); // 16 tasks of 100 us: past the minimum run of a group queued behind
            for (int call = 0; call < 5; call++) {
                final int c = call;
                final List<Integer> out = pool.map((Integer x) -> {
                    GroupsQueuedBehindTest.spin(100);
                    return x + c;
                }, IntStream.range(0, 800).boxed().toList());
                assertEquals(IntStream.range(c, 800 + c).boxed().toList(), out, "call " + c);
            }
            assertTrue(pool.groupsQueuedBehind() > 0, "no group was queued behind a running one");
            assertTrue(pool.resultThreadGroupSleeps() > 0, "the result thread never slept while groups ran");
        }
    }

    /**
     * Tasks with deadlines sent two to a message: the first one's answer must wake the sleeping parent, for the
     * second one's deadline counts from when the parent reads it. Deadlines and the sleep's guard of 10 minutes:
     * a parent woken only at the message's end would read the first answer after the second task, which waits
     * for the test to see that answer.
     */
    @Test
    @Timeout(value = 120, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aGroupedTasksAnswerWakesTheSleepingParentWhenItsNeighbourHasADeadline(@TempDir Path dir) throws Exception {
        try (ProcessPool pool = ProcessPool.builder().workers(1).resultSleep(Duration.ofMinutes(10))
            .taskTimeout(Duration.ofMinutes(10)).reducers(Reducers.defaults().with(new FactorReducer())).build()) {
            awaitDoorbell(pool);
            pool.tasksPerMessage(2);
            FactorReducer.DECODED.set(0); // the parent's reducer counts the results it reads
            final long messagesBefore = pool.messagesSent();
            final String go = dir.resolve("go").toString();
            final CompletableFuture<List<Factor>> call = CompletableFuture.supplyAsync(() -> pool.map((Integer x) -> {
                if (x == 0) {
                    Thread.sleep(300); // the parent goes to sleep meanwhile
                } else {
                    while (!Files.exists(Path.of(go))) {
                        Thread.sleep(5);
                    }
                }
                return new Factor(x);
            }, List.of(0, 1)));
            for (int i = 0; i < 3000 && FactorReducer.DECODED.get() == 0; i++) {
                Thread.sleep(10);
            }
            final int readWhileTheGroupRan = FactorReducer.DECODED.get();
            Files.createFile(Path.of(go));
            assertEquals(List.of(new Factor(0), new Factor(1)), call.get(30, TimeUnit.SECONDS));
            assertEquals(1, pool.messagesSent() - messagesBefore, "the two tasks were not sent as one message");
            assertEquals(1, readWhileTheGroupRan, "the parent did not read the first answer while the second task ran");
        }
    }

    @Test
    @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aTaskDeadlineEndsTheParentsSleep() throws Exception {
        try (ProcessPool pool = ProcessPool.builder().workers(1).resultSleep(Duration.ofMinutes(10)).build()) {
            awaitDoorbell(pool);
            final CompletableFuture<Integer> task = sleepTask(pool, 60_000, Duration.ofMillis(300));
            final ExecutionException e = assertThrows(ExecutionException.class, () -> task.get(30, TimeUnit.SECONDS));
            assertInstanceOf(TaskTimeoutException.class, e.getCause());
            // the replacement worker answers a sleeping parent too
            assertEquals(50, sleepTask(pool, 50, null).get(30, TimeUnit.SECONDS));
        }
    }

    @Test
    @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aDeadlineThatStartsWhileTheParentSleepsWakesIt() throws Exception {
        final ProcessPool pool = ProcessPool.builder().workers(2).resultSleep(Duration.ofMinutes(10)).build();
        try {
            awaitDoorbell(pool);
            // a long task without a deadline: the result thread goes to sleep for up to 10 minutes
            final CompletableFuture<Integer> longTask = sleepTask(pool, 60_000, null);
            final long start = System.nanoTime();
            while (!pool.resultThreadSleeping() && System.nanoTime() - start < TimeUnit.SECONDS.toNanos(20)) {
                Thread.sleep(5);
            }
            assertTrue(pool.resultThreadSleeping(), "the result thread went to sleep");
            // a task with a deadline starts on the other worker while the parent sleeps: its deadline must end the
            // sleep now, not when the long task answers a minute later
            final CompletableFuture<Integer> timed = sleepTask(pool, 60_000, Duration.ofMillis(300));
            final ExecutionException e = assertThrows(ExecutionException.class, () -> timed.get(15, TimeUnit.SECONDS));
            assertInstanceOf(TaskTimeoutException.class, e.getCause());
            assertFalse(longTask.isDone(), "the long task still runs");
        } finally {
            pool.shutdownNow();
        }
    }

    /**
     * One bind that failed for a while ("Too many open files", a folder out of inodes) turned the doorbell off for the
     * pool's life: long tasks were polled for, ~25x the parent's CPU, after the descriptors came back (resources
     * review 47). It is now bound again after a back-off.
     */
    @Test
    @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aDoorbellWhoseBindFailedForAWhileIsBoundLater() throws Exception {
        final java.util.concurrent.atomic.AtomicInteger failures = new java.util.concurrent.atomic.AtomicInteger();
        ResultDoorbell.afterBind = () -> {
            if (failures.getAndIncrement() == 0) {
                throw new java.io.UncheckedIOException(new IOException("Too many open files"));
            }
        };
        try (ProcessPool pool = ProcessPool.builder().workers(1).build()) {
            for (int i = 0; i < 100 && failures.get() == 0; i++) {
                assertEquals(20, sleepTask(pool, 20, null).get(30, TimeUnit.SECONDS));
            }
            assertEquals(1, failures.get(), "the first bind was tried and failed");
            assertFalse(pool.resultDoorbellBound());
            awaitDoorbell(pool); // a back-off of 1 s, then bound: at most 100 tasks of 20 ms
            assertEquals(2, failures.get(), "bound at the second try");
        } finally {
            ResultDoorbell.afterBind = null;
        }
    }

    /**
     * The JDK's bind of a Unix socket is bind(2) and listen(2) in one: a failed listen (ENOMEM, say) left the socket
     * file, which the clean-up passed over as not bound, so every later bind failed in its way (EADDRINUSE) for the
     * pool's life, and the file outlived the JVM (fault review 49, F3). Here the failed bind leaves a real socket file.
     */
    @Test
    @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aBindThatFailedAfterMakingItsFileLeavesNoneInTheWayOfTheNext() throws Exception {
        final java.util.concurrent.atomic.AtomicInteger binds = new java.util.concurrent.atomic.AtomicInteger();
        final java.util.List<Path> left = new java.util.concurrent.CopyOnWriteArrayList<>();
        ResultDoorbell.failedBind = path -> {
            if (binds.getAndIncrement() > 0) {
                return null;
            }
            try (java.nio.channels.ServerSocketChannel other = java.nio.channels.ServerSocketChannel.open(
                    java.net.StandardProtocolFamily.UNIX)) {
                other.bind(java.net.UnixDomainSocketAddress.of(path)); // the file a failed listen leaves
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
            left.add(path);
            return path;
        };
        try (ProcessPool pool = ProcessPool.builder().workers(1).build()) {
            for (int i = 0; i < 100 && left.isEmpty(); i++) { // the list is written last: the hook is done
                assertEquals(20, sleepTask(pool, 20, null).get(30, TimeUnit.SECONDS));
            }
            assertEquals(1, left.size(), "the first bind failed, leaving its file");
            awaitDoorbell(pool); // a back-off of 1 s, then bound: before, EADDRINUSE for the pool's life
            assertTrue(binds.get() >= 2);
        } finally {
            ResultDoorbell.failedBind = null;
        }
        assertFalse(Files.exists(left.get(0)), "the socket file went with the pool");
    }

    /**
     * A bind that fails because a socket is already bound at the path (EADDRINUSE) made no file: it must not delete the
     * one there, which its owner still serves (diff review 49, F5).
     */
    @Test
    void aBindRefusedForALiveSocketLeavesItsFile(@TempDir Path tmp) throws Exception {
        final Path path = tmp.resolve("live.bell");
        try (java.nio.channels.ServerSocketChannel live = java.nio.channels.ServerSocketChannel.open(
                java.net.StandardProtocolFamily.UNIX)) {
            live.bind(java.net.UnixDomainSocketAddress.of(path));
            assertThrows(IOException.class, () -> ResultDoorbell.open(path));
            assertTrue(Files.exists(path), "the live socket's file is still there");
        } finally {
            Files.deleteIfExists(path);
        }
    }

    @Test
    @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aFolderTooDeepForASocketFallsBackToPolling(@TempDir Path tmp) throws Exception {
        // a socket path is limited to 107 bytes: this folder's doorbell cannot be bound
        final Path deep = Files.createDirectories(tmp.resolve("d".repeat(60)).resolve("e".repeat(60)));
        try (ProcessPool pool = ProcessPool.builder().workers(1).tempFolder(deep).resultSleep(Duration.ofMinutes(10))
            .build()) {
            // 0.5 s of waiting: past the polling time after which the pool binds its doorbell, which fails here
            for (int i = 0; i < 5; i++) {
                assertEquals(i, pool.submit((Integer x) -> {
                    Thread.sleep(100);
                    return x;
                }, i).get(30, TimeUnit.SECONDS));
            }
            assertFalse(pool.resultDoorbellBound());
        }
    }

    @Test
    @Timeout(60)
    void onceEveryWorkerIsConnectedTheParentSleepsInLongStretches() throws Exception {
        try (ProcessPool pool = ProcessPool.create(1)) {
            awaitDoorbell(pool);
            for (int i = 0; i < 5; i++) {
                // answered while the parent sleeps: the worker rings, and so connects
                assertEquals(20, sleepTask(pool, 20, null).get(30, TimeUnit.SECONDS));
            }
            final CompletableFuture<Integer> task = sleepTask(pool, 1500, null);
            // a ring is sure to come: the 5 ms guard gives way to 100 ms (~10 sleeps a second instead of ~200)
            assertEquals(100, awaitGuardMillis(pool, 100));
            assertEquals(1500, task.get(30, TimeUnit.SECONDS));
        }
    }

    @Test
    @Timeout(60)
    void aWorkerThatCannotReachTheDoorbellIsStillReadEveryFewMilliseconds(@TempDir Path dir) throws Exception {
        try (ProcessPool pool = ProcessPool.builder().workers(1).tempFolder(dir).build()) {
            final CompletableFuture<Integer> first = sleepTask(pool, 1500, null);
            // held, the pump lock keeps the result thread from raising the worker's flag: the worker cannot ring
            // (and connect) before the socket file is gone
            pool.holdPumpLockWhile(() -> {
                try {
                    final Path bell = awaitFile(dir, ".bell");
                    Files.delete(bell);
                } catch (Exception e) {
                    throw new AssertionError(e);
                }
            });
            // its answer finds the flag up; connecting fails, and the worker gives up ringing
            assertEquals(1500, first.get(30, TimeUnit.SECONDS));
            final CompletableFuture<Integer> second = sleepTask(pool, 1500, null);
            // its answer would wait for the guard: it stays short
            assertEquals(5, awaitGuardMillis(pool, 5));
            assertEquals(1500, second.get(30, TimeUnit.SECONDS));
        }
    }

    /**
     * @return the result thread's sleep guard in ms, once it is {@code expected} or, failing that, after it has
     *         slept for 3 s of a running task with whatever guard it chose
     */
    private static long awaitGuardMillis(ProcessPool pool, long expected) throws InterruptedException {
        long guard = 0;
        for (int i = 0; i < 300 && guard != expected; i++) {
            Thread.sleep(10);
            guard = TimeUnit.NANOSECONDS.toMillis(pool.resultSleepGuardNanos());
        }
        return guard;
    }

    /** @return the first file under {@code dir} whose name ends with {@code suffix}, once there is one (10 s at most) */
    private static Path awaitFile(Path dir, String suffix) throws Exception {
        for (int i = 0; i < 10_000; i++) {
            try (var files = Files.walk(dir)) {
                final var found = files.filter(f -> f.getFileName().toString().endsWith(suffix)).findFirst();
                if (found.isPresent()) {
                    return found.get();
                }
            }
            Thread.sleep(1);
        }
        throw new AssertionError("no " + suffix + " file under " + dir);
    }
}
