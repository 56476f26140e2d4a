package dev.sharray.pool;

import dev.sharray.JvmFlags;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Tiny tasks of a map call travel to a worker several per message (TASKS): results stay per task and in
 * order, and a failure, a crash or a timeout inside a group costs only the task that ran into it.
 */
class TaskGroupingTest {
    private static final int TASKS = 20_000;

    private static List<Integer> range(int n) {
        final List<Integer> l = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            l.add(i);
        }
        return l;
    }

    @Test
    void tinyTasksShareMessagesAndKeepTheirResultsInOrder() {
        try (ProcessPool pool = ProcessPool.create(2)) {
            final List<Integer> out = pool.map((Integer x) -> x * 2 + 1, range(TASKS));
            for (int i = 0; i < TASKS; i++) {
                assertEquals(2 * i + 1, out.get(i), "result " + i);
            }
            assertTrue(pool.groupsSent() > 0, "no task group was sent");
        }
    }

    @Test
    void longTasksAndShortCallsGoOnePerMessage() {
        try (ProcessPool pool = ProcessPool.create(2)) {
            pool.map((Integer x) -> {
                Thread.sleep(5);
                return x;
            }, range(40));
            pool.map((Integer x) -> x, range(6));
            assertEquals(0, pool.groupsSent());
        }
    }

    @Test
    void aFailingTaskInAGroupFailsAloneWithItsOwnException() {
        try (ProcessPool pool = ProcessPool.create(2)) {
            final RemoteTaskException e = assertThrows(RemoteTaskException.class, () -> pool.map((Integer x) -> {
                if (x % 2000 == 1999) {
                    throw new IllegalArgumentException("bad " + x);
                }
                return x;
            }, range(TASKS)));
            assertTrue(e.getMessage().contains("bad 1999"), e.getMessage());
            assertEquals(TASKS / 2000 - 1, e.getSuppressed().length);
            for (Throwable s : e.getSuppressed()) {
                assertTrue(s.getMessage().contains("IllegalArgumentException"), s.getMessage());
            }
            assertTrue(pool.groupsSent() > 0);
        }
    }

    @Test
    void aWorkerKilledInsideAGroupFailsOnlyTheTaskItRanAndTheRestRunElsewhere(@TempDir Path tmp) {
        assertTimeoutPreemptively(Duration.ofSeconds(60), () -> {
            // a line per run of the killing task: it started, so it must not run again on another worker
            final String killerRuns = Files.createTempFile(tmp, "runs", ".txt").toString();
            try (ProcessPool pool = ProcessPool.create(2)) {
                final WorkerCrashedException e = assertThrows(WorkerCrashedException.class, () -> pool.map((Integer x) -> {
                    if (x == TASKS * 3 / 4) {
                        Files.writeString(Path.of(killerRuns), ProcessHandle.current().pid() + "\n", StandardOpenOption.APPEND);
                        Signals.kill9(ProcessHandle.current().pid());
                        Thread.sleep(10_000);
                    }
                    return x;
                }, range(TASKS)));
                // every other task completed: a failed one would be suppressed here
                assertEquals(0, e.getSuppressed().length, () -> "other tasks failed: " + e.getSuppressed()[0]);
                assertTrue(pool.groupsSent() > 0);
                assertEquals(1, Files.readAllLines(Path.of(killerRuns)).size(), "runs of the task that killed its worker");
                // and the pool, with its replacement worker, still answers
                assertEquals(List.of(1, 2, 3), pool.map((Integer x) -> x + 1, List.of(0, 1, 2)));
            }
        });
    }

    @Test
    void aTimeoutInsideAGroupFailsOnlyThatTask() {
        assertTimeoutPreemptively(Duration.ofSeconds(60), () -> {
            try (ProcessPool pool = ProcessPool.builder().workers(2).taskTimeout(Duration.ofSeconds(2)).build()) {
                final TaskTimeoutException e = assertThrows(TaskTimeoutException.class, () -> pool.map((Integer x) -> {
                    if (x == TASKS / 2) {
                        Thread.sleep(60_000);
                    }
                    return x;
                }, range(TASKS)));
                assertEquals(0, e.getSuppressed().length, () -> "other tasks failed: " + e.getSuppressed()[0]);
                assertTrue(pool.groupsSent() > 0);
            }
        });
    }

    /**
     * A worker that first meets a call through a group decodes the call's function from the group: one worker
     * is busy while the call starts, so by the time it is free the call's tasks travel in groups, and the first
     * message it gets defines the function (FN_DEFINE for a stateless lambda, FN_MAP_DEFINE for one that
     * captures a value).
     */
    @Test
    void aWorkerFirstReachedByAGroupDecodesTheFunctionFromIt() {
        assertTimeoutPreemptively(Duration.ofSeconds(60), () -> {
            try (ProcessPool pool = ProcessPool.create(2)) {
                final int offset = Integer.parseInt("7"); // not a constant: the lambda below must capture it
                final List<RemoteFunction<Integer, Long>> functions = List.of(
                    x -> spinThenTag(x),                    // stateless: a function id for good
                    x -> spinThenTag(x + offset));          // captures a value: cached for this call only
                for (int f = 0; f < functions.size(); f++) {
                    final int add = f == 0 ? 0 : offset;
                    final long groupsBefore = pool.groupsSent();
                    final java.util.concurrent.CompletableFuture<Integer> busy = pool.submit((Integer x) -> {
                        Thread.sleep(300);
                        return x;
                    }, 1);
                    final List<Long> out = pool.map(functions.get(f), range(TASKS));
                    assertEquals(1, busy.get());
                    final java.util.Set<Long> pids = new java.util.HashSet<>();
                    for (int i = 0; i < TASKS; i++) {
                        assertEquals(i + add, out.get(i) % PID_SCALE, "result " + i);
                        pids.add(out.get(i) / PID_SCALE);
                    }
                    assertEquals(2, pids.size(), "the worker that was busy at the start never joined the call");
                    assertTrue(pool.groupsSent() > groupsBefore, "no task group was sent");
                }
            }
        });
    }

    private static final long PID_SCALE = 1_000_000;

    /** Busy for ~50 us (a task long enough for the call to outlast a 300 ms task), then the value tagged with this worker's pid. */
    private static long spinThenTag(int value) {
        final long end = System.nanoTime() + 50_000;
        while (System.nanoTime() < end) {
            Thread.onSpinWait();
        }
        return ProcessHandle.current().pid() * PID_SCALE + value;
    }

    /** A worker that reads a malformed TASKS message exits with a protocol error instead of running anything. */
    @Test
    void malformedTaskGroupsEndTheWorkerWithAProtocolError(@TempDir Path dir) throws Exception {
        // count below 2
        assertProtocolError(dir, "count", group(1, new byte[] {Protocol.FN_MAP_REF, 7, 0, 0, 0}), "task group of");
        // a task's argument length past the message end
        final UnsafeBuffer b = group(2, new byte[] {Protocol.FN_MAP_REF, 7, 0, 0, 0}, 1L, 1_000_000, new byte[3]);
        assertProtocolError(dir, "arg", b, "argument bytes");
        // a function section claiming more bytes than the message has
        assertProtocolError(dir, "fn", group(2, new byte[] {Protocol.FN_MAP_DEFINE, 7, 0, 0, 0, (byte) 0xff, (byte) 0xff, 0, 0}),
            "malformed function section");
        // bytes after the last task
        assertProtocolError(dir, "trail", group(2, new byte[] {Protocol.FN_MAP_REF, 7, 0, 0, 0}, 1L, 0, new byte[0], 2L, 0,
            new byte[0], 0L, 0, new byte[0]), "bytes trail a task group");
        // fewer tasks than the count says
        assertProtocolError(dir, "short", group(3, new byte[] {Protocol.FN_MAP_REF, 7, 0, 0, 0}, 1L, 0, new byte[0]),
            "task group ends after");
    }

    /** A TASKS frame: count, fn section, then (id, argLength, arg bytes) triples. */
    private static UnsafeBuffer group(int count, byte[] fnSection, Object... tasks) {
        final UnsafeBuffer b = new UnsafeBuffer(new byte[256]);
        b.putByte(0, Protocol.TASKS);
        b.putInt(1, count, ByteOrder.LITTLE_ENDIAN);
        int pos = Protocol.TASKS_HEADER;
        b.putBytes(pos, fnSection);
        pos += fnSection.length;
        for (int i = 0; i < tasks.length; i += 3) {
            b.putLong(pos, (Long) tasks[i], ByteOrder.LITTLE_ENDIAN);
            b.putInt(pos + 8, (Integer) tasks[i + 1], ByteOrder.LITTLE_ENDIAN);
            final byte[] arg = (byte[]) tasks[i + 2];
            b.putBytes(pos + 12, arg);
            pos += 12 + arg.length;
        }
        return new UnsafeBuffer(b, 0, pos);
    }

    private static void assertProtocolError(Path dir, String name, UnsafeBuffer frame, String expected)
        throws IOException, InterruptedException {
        final Path ringPath = dir.resolve(name + ".ring");
        try (RingFile rings = RingFile.create(ringPath, 4096)) {
            final List<String> cmd = JvmFlags.javaCommand(List.of(), WorkerMain.class.getName(),
                ringPath.toString(), dir.resolve(name + ".bell").toString(), "1", Long.toString(ProcessHandle.current().pid()));
            final Process worker = new ProcessBuilder(cmd).start();
            try {
                new Frames.Writer(rings.toWorker()).write(frame, 0, frame.capacity(), () -> true);
                assertTrue(worker.waitFor(30, TimeUnit.SECONDS), "the worker did not exit");
                final String err = new String(worker.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
                assertEquals(70, worker.exitValue(), err);
                assertTrue(err.contains("protocol error") && err.contains(expected), err);
            } finally {
                worker.destroyForcibly();
                worker.waitFor();
            }
        }
    }
}
