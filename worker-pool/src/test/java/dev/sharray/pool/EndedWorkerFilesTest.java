package dev.sharray.pool;

import dev.sharray.DType;
import dev.sharray.SharedArray;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Arrays a worker created are freed when the worker ends without its exit hook (a crash, a kill, a timeout,
 * {@code shutdownNow()}), not only at the next sharray process's first use: those that no live process holds at
 * once, the others (and the worker's folder) at their last holder's release. Each check runs right after something
 * the pool does only once it has freed them (starting the replacement, returning from {@code shutdownNow()}), so
 * another sharray process's reaper pass meanwhile cannot make a check pass.
 */
class EndedWorkerFilesTest {
    /** What a task keeps in its worker, as a worker-side cache would (each worker JVM has its own). */
    static final List<SharedArray> KEPT = new ArrayList<>();

    /** Creates an array in the worker, keeps it there, and answers its path. */
    private static final RemoteFunction<Integer, String> CREATE_AND_KEEP = n -> {
        final SharedArray a = SharedArray.create(DType.FLOAT64, n);
        KEPT.add(a);
        return a.path().toString();
    };

    @Test
    void whatAWorkerKilledWithKill9CreatedIsFreedAndWhatTheParentHoldsStaysUntilItsRelease() throws Exception {
        try (ProcessPool pool = ProcessPool.create(1)) {
            final long pid = pool.workerPids().get(0);
            final Path kept = Path.of(pool.submit(CREATE_AND_KEEP, 1 << 16).get(30, TimeUnit.SECONDS));
            final SharedArray held = pool.submit((Integer n) -> {
                final SharedArray a = SharedArray.create(DType.FLOAT64, n);
                a.setDouble(42.0, n - 1);
                KEPT.add(a); // the worker holds it too, and the parent holds the answer
                return a;
            }, 1 << 16).get(30, TimeUnit.SECONDS);
            final Path heldPath = held.path();
            final Path workerFolder = kept.getParent();
            assertEquals(workerFolder, heldPath.getParent(), "both live in the worker's own folder");

            assertEquals(0, Signals.kill9(pid));
            // runs on the replacement, which the pool starts only after it has freed what the dead worker left
            assertEquals(3, pool.submit((Integer x) -> x + 1, 2).get(30, TimeUnit.SECONDS));
            assertFalse(Files.exists(kept), "freed when the pool saw its worker end");
            assertEquals(42.0, held.getDouble((1 << 16) - 1), "an array the parent holds stays, with its data");
            assertTrue(Files.exists(heldPath));
            assertTrue(Files.isDirectory(workerFolder), "the folder stays while an array in it is held");

            held.release();
            assertFalse(Files.exists(heldPath));
            assertFalse(Files.exists(workerFolder), "the last release removed the ended worker's emptied folder");
        }
    }

    /**
     * The parent's own array, which a worker kept after the parent released it: the worker's kill leaves its
     * reference counted in the parent's folder, which no reaper enters while the parent lives. The pool's pass
     * over the ended worker drops that reference and deletes the array (it stayed until the parent exited). The
     * array lives under a root of this test's own, so no other sharray process's reaper pass can delete it.
     */
    @Test
    void theParentsArrayAKilledWorkerWasTheLastToHoldIsFreed(@TempDir Path root) throws Exception {
        try (ProcessPool pool = ProcessPool.create(1)) {
            final long pid = pool.workerPids().get(0);
            final SharedArray a = SharedArray.builder(DType.FLOAT64, 1 << 16).folder(root).create();
            final Path file = a.path();
            assertEquals(1.0, pool.submit((SharedArray x) -> {
                KEPT.add(x.retain()); // as a worker-side cache of opened arrays would
                return 1.0;
            }, a).get(30, TimeUnit.SECONDS));
            a.release();
            assertTrue(Files.exists(file), "the worker holds it");

            assertEquals(0, Signals.kill9(pid));
            // runs on the replacement, which the pool starts only after it has freed what the dead worker left
            assertEquals(3, pool.submit((Integer x) -> x + 1, 2).get(30, TimeUnit.SECONDS));
            assertFalse(Files.exists(file), "freed when the pool saw the last holder end");
            assertFalse(Files.exists(Path.of(file.toString().replace(".npy", ".ref"))));
        }
    }

    @Test
    void whatATimedOutWorkerCreatedIsFreed() throws Exception {
        try (ProcessPool pool = ProcessPool.create(1)) {
            final Path kept = Path.of(pool.submit(CREATE_AND_KEEP, 1 << 16).get(30, TimeUnit.SECONDS));
            final ExecutionException e = assertThrows(ExecutionException.class, () -> pool.submit((Integer x) -> {
                Thread.sleep(60_000);
                return x;
            }, 1, Duration.ofMillis(300)).get(30, TimeUnit.SECONDS));
            assertInstanceOf(TaskTimeoutException.class, e.getCause());
            // runs on the replacement (the replacement JVM is cold: no short timeout here)
            assertEquals(5, pool.submit((Integer x) -> x, 5, Duration.ofSeconds(30)).get(30, TimeUnit.SECONDS));
            assertFalse(Files.exists(kept), "freed when the pool saw its worker end");
            assertFalse(Files.exists(kept.getParent()));
        }
    }

    @Test
    void whatWorkersCreatedIsFreedByTheTimeShutdownNowReturns() throws Exception {
        final ProcessPool pool = ProcessPool.create(2);
        final List<Path> kept = pool.map(CREATE_AND_KEEP, List.of(1 << 16, 1 << 16, 1 << 16, 1 << 16)).stream()
            .map(Path::of).collect(java.util.stream.Collectors.toList());
        pool.shutdownNow();
        for (Path p : kept) {
            assertFalse(Files.exists(p), p + " outlived shutdownNow()");
            assertFalse(Files.exists(p.getParent()), p.getParent() + " outlived shutdownNow()");
        }
    }
}
