package dev.sharray;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Bulk work split across threads (copies into shared memory, page population): every byte lands, even with
 * no helper free, and a chunk's failure reaches the caller once every chunk has ended.
 */
class ParallelChunksTest {

    private static byte[] random(int n, long seed) {
        final byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    @Test
    @Timeout(120)
    void aLargeCopyLandsWholeAtChunkEdgesAndPastTheLast() {
        // 64 MiB + 12,345 bytes: the threshold, a last chunk shorter than the others
        for (int n : new int[] {(int) ParallelChunks.MIN_BYTES + 12_345, (int) ParallelChunks.MIN_BYTES + (8 << 20)}) {
            final byte[] src = random(n, n);
            try (SharedArray a = SharedArray.create(DType.UINT8, n)) {
                a.copyFrom(src);
                assertArrayEquals(src, a.toByteArray()); // the copy out is split the same way
            }
        }
        final double[] d = new double[(int) (ParallelChunks.MIN_BYTES / 8) + 3];
        for (int i = 0; i < d.length; i++) {
            d[i] = i * 0.5;
        }
        try (SharedArray a = SharedArray.copyOf(d)) {
            assertArrayEquals(d, a.toDoubleArray());
        }
    }

    @Test
    @Timeout(120)
    void aCommonPoolWithNoFreeThreadLeavesTheCopyToTheCaller() throws Exception {
        final int threads = ForkJoinPool.getCommonPoolParallelism();
        final CountDownLatch release = new CountDownLatch(1);
        final CountDownLatch busy = new CountDownLatch(threads);
        final List<java.util.concurrent.Future<?>> blockers = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            blockers.add(ForkJoinPool.commonPool().submit(() -> {
                busy.countDown();
                release.await();
                return null;
            }));
        }
        try {
            assertTrue(busy.await(30, TimeUnit.SECONDS), "every common-pool thread is blocked");
            final byte[] src = random((int) ParallelChunks.MIN_BYTES * 2, 7);
            try (SharedArray a = SharedArray.create(DType.UINT8, src.length)) {
                a.copyFrom(src); // would hang if the caller waited for a helper that never runs
                assertArrayEquals(src, a.toByteArray());
            }
        } finally {
            release.countDown();
            for (java.util.concurrent.Future<?> f : blockers) {
                f.get(30, TimeUnit.SECONDS);
            }
        }
    }

    @Test
    @Timeout(120)
    void prefaultKeepsTheContentsAndSaysWhatTheKernelDoes() {
        final byte[] src = random((int) ParallelChunks.MIN_BYTES * 2 + 4097, 11);
        try (SharedArray a = SharedArray.create(DType.UINT8, src.length);
             SharedArray view = a.slice(0, 4097, src.length, 1)) {
            a.copyFrom(src);
            final boolean kernel = Posix.populateWrite(a.address(), 4096);
            assertEquals(kernel, view.prefault(), "a view starting mid-page, split in chunks");
            assertEquals(kernel, a.prefault());
            assertArrayEquals(src, a.toByteArray());
        }
    }

    /**
     * Another thread's release of an array while helper threads copy it (a misuse) unmapped the memory under them: on
     * JDK 17 their fault was raised later, in whatever the common-pool thread ran next, another live array's copy
     * included (threads review 47: 7 failures in 25 rounds). A call lent to helpers now holds a reference of its own:
     * the copy completes, and the array goes with that reference.
     */
    @Test
    @Timeout(value = 120, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aReleaseWhileHelpersCopyLeavesTheMemoryMappedUntilTheCopyEnds() {
        final int n = (int) (ParallelChunks.MIN_BYTES / 8);
        final double[] values = new double[n];
        for (int i = 0; i < n; i++) {
            values[i] = i;
        }
        int releasedMidCopy = 0;
        for (int round = 0; round < 40 && releasedMidCopy < 3; round++) {
            final SharedArray a = SharedArray.create(DType.FLOAT64, n);
            a.copyFrom(values);
            final java.nio.file.Path file = a.path();
            final java.util.concurrent.atomic.AtomicBoolean released = new java.util.concurrent.atomic.AtomicBoolean();
            final java.util.concurrent.atomic.AtomicBoolean keptMapped = new java.util.concurrent.atomic.AtomicBoolean();
            // the caller is out of chunks while a helper still copies: the release comes then, as from another thread,
            // and must leave the array (its file, its mapping) to the call's own reference
            ParallelChunks.beforeWait = () -> {
                if (released.compareAndSet(false, true)) {
                    a.release();
                    keptMapped.set(java.nio.file.Files.exists(file));
                }
            };
            final double[] out;
            try {
                out = a.toDoubleArray();
            } finally {
                ParallelChunks.beforeWait = null;
            }
            if (released.get()) {
                releasedMidCopy++;
                assertTrue(keptMapped.get(), "the release deleted and unmapped the array under the helpers");
                assertArrayEquals(values, out, "the copy lands whole");
                assertFalse(java.nio.file.Files.exists(file), "the array goes with the call's reference");
            } else {
                a.release();
            }
        }
        assertTrue(releasedMidCopy > 0, "no round released the array while a helper copied");
    }

    @Test
    @Timeout(value = 120, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void anIdleCommonPoolTakesChunksWhileTheCallerWorks() throws Exception {
        // the caller's first chunk waits until another thread has run a chunk: without a helper it waits forever
        final Thread caller = Thread.currentThread();
        final CountDownLatch helped = new CountDownLatch(1);
        final java.util.Set<Thread> threads = java.util.concurrent.ConcurrentHashMap.newKeySet();
        ParallelChunks.run(ParallelChunks.MIN_BYTES, 8 << 20, (offset, length) -> {
            threads.add(Thread.currentThread());
            if (Thread.currentThread() != caller) {
                helped.countDown();
            } else if (offset == 0) {
                try {
                    assertTrue(helped.await(60, TimeUnit.SECONDS), "no helper took a chunk");
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            }
        });
        // the helper may even take every chunk before the caller claims one (a descheduled caller)
        assertTrue(threads.stream().anyMatch(t -> t != caller), "chunks ran on " + threads);
    }

    @Test
    @Timeout(120)
    void aFailingChunkIsRethrownAfterEveryChunkEnded() {
        final java.util.concurrent.atomic.AtomicInteger ran = new java.util.concurrent.atomic.AtomicInteger();
        final IllegalStateException boom = new IllegalStateException("chunk 3");
        final long chunk = 1 << 20;
        final IllegalStateException thrown = assertThrows(IllegalStateException.class,
            () -> ParallelChunks.run(ParallelChunks.MIN_BYTES, chunk, (offset, length) -> {
                ran.incrementAndGet();
                if (offset == 3 * chunk) {
                    throw boom;
                }
            }));
        assertSame(boom, thrown);
        assertEquals(ParallelChunks.MIN_BYTES / chunk, ran.get(), "every chunk ran");
    }

    /**
     * An interrupted caller waiting for a helper's chunk: every park returned at once on the interrupt, so it spun on a
     * core for as long as the helper worked (the copy is not interruptible, and keeps the interrupt). The helper's
     * chunk lasts a moment after the caller began to wait: a parked caller wakes once or twice, a spinning one
     * thousands of times.
     */
    @Test
    @Timeout(value = 120, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void anInterruptedCallerWaitsForAHelpersChunkParkedAndKeepsItsInterrupt() {
        final Thread caller = Thread.currentThread();
        final java.util.concurrent.atomic.AtomicBoolean helperStarted = new java.util.concurrent.atomic.AtomicBoolean();
        final java.util.concurrent.atomic.AtomicInteger wakeUps = new java.util.concurrent.atomic.AtomicInteger();
        ParallelChunks.afterPark = wakeUps::incrementAndGet;
        caller.interrupt();
        try {
            ParallelChunks.run(ParallelChunks.MIN_BYTES, ParallelChunks.MIN_BYTES / 2, (offset, length) -> {
                if (Thread.currentThread() == caller) {
                    while (!helperStarted.get()) { // not a latch: an interrupted await would throw
                        Thread.onSpinWait();
                    }
                    return;
                }
                helperStarted.set(true);
                while (wakeUps.get() == 0) { // the caller's first park returns at once on its interrupt
                    Thread.onSpinWait();
                }
                // a window in which a spinning caller wakes thousands of times, and a parked one not at all
                java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
            });
            assertTrue(Thread.currentThread().isInterrupted(), "the caller's interrupt is kept");
        } finally {
            ParallelChunks.afterPark = null;
            Thread.interrupted();
        }
        assertTrue(helperStarted.get(), "no helper took a chunk");
        assertTrue(wakeUps.get() <= 10, "the interrupted caller spun instead of parking: " + wakeUps.get() + " wake-ups");
    }
}
