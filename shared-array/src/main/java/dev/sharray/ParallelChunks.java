package dev.sharray;

import org.agrona.UnsafeApi;

import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * Runs bulk memory work over a large range (copying a heap array in, faulting pages in) on the calling thread
 * and the common {@link ForkJoinPool}'s threads together: one thread does not reach what the memory and the
 * kernel can do (two threads here: a 1 GiB copy ~165 -> ~90 ms, populating 1 GiB ~229 -> ~124 ms). The range
 * is cut into chunks that whoever is free claims in turn, and the caller claims too, so a busy or empty
 * common pool only makes the work single-threaded, never stalls it; the caller then waits only for chunks a
 * helper has claimed and is working on.
 */
final class ParallelChunks {
    /** Below this one thread is as fast: starting a helper costs tens of microseconds. */
    static final long MIN_BYTES = 64L << 20;
    private static final long COPY_CHUNK = 8L << 20;

    /** Work on one chunk of the range. */
    interface Work {
        /**
         * @param offset from the start of the range
         * @param length of this chunk
         */
        void run(long offset, long length);
    }

    /** Test hook: runs each time the caller's wait for helpers returns from a park (null: nothing). */
    static volatile Runnable afterPark;
    /** Test hook: runs when the caller has run out of chunks and a helper still runs one, before it waits (null: nothing). */
    static volatile Runnable beforeWait;

    private Work work;
    private final long bytes;
    private final long chunk;
    private final int chunks;
    private final Thread caller = Thread.currentThread();
    private final AtomicInteger next = new AtomicInteger();
    private final AtomicInteger done = new AtomicInteger();
    private volatile Throwable failure;

    private ParallelChunks(long bytes, long chunk, Work work) {
        this.work = work;
        this.bytes = bytes;
        this.chunk = chunk;
        this.chunks = (int) ((bytes + chunk - 1) / chunk);
    }

    /**
     * Copies {@code bytes} from {@code src} (a primitive array, from {@code srcOffset} as Unsafe counts) to
     * {@code dstAddress}; the caller guarantees the destination stays mapped until this returns.
     */
    static void copyIn(Object src, long srcOffset, long dstAddress, long bytes) {
        if (bytes < MIN_BYTES) {
            UnsafeApi.copyMemory(src, srcOffset, null, dstAddress, bytes); // the common case: no lambda, no job
            return;
        }
        run(bytes, COPY_CHUNK, (offset, length) -> UnsafeApi.copyMemory(src, srcOffset + offset, null, dstAddress + offset, length));
    }

    /** Copies {@code bytes} from {@code srcAddress} into {@code dst} (a primitive array, from {@code dstOffset}). */
    static void copyOut(long srcAddress, Object dst, long dstOffset, long bytes) {
        if (bytes < MIN_BYTES) {
            UnsafeApi.copyMemory(null, srcAddress, dst, dstOffset, bytes);
            return;
        }
        run(bytes, COPY_CHUNK, (offset, length) -> UnsafeApi.copyMemory(null, srcAddress + offset, dst, dstOffset + offset, length));
    }

    /**
     * Runs {@code work} over {@code [0, bytes)} in chunks of {@code chunk} bytes (the last may be shorter),
     * in parallel when the range is at least {@link #MIN_BYTES}; returns when every chunk is done.
     *
     * @throws RuntimeException or Error: the first a chunk threw, once every chunk has ended
     */
    static void run(long bytes, long chunk, Work work) {
        final int helpers = bytes < MIN_BYTES ? 0 : (int) Math.min(Math.min(ForkJoinPool.getCommonPoolParallelism(), 7),
            (bytes + chunk - 1) / chunk - 1);
        if (helpers <= 0) {
            work.run(0, bytes);
            return;
        }
        final ParallelChunks job = new ParallelChunks(bytes, chunk, work);
        for (int i = 0; i < helpers; i++) {
            ForkJoinPool.commonPool().execute(job::runChunks);
        }
        job.runChunks();
        final Runnable waiting = beforeWait;
        if (waiting != null && job.done.get() < job.chunks) {
            waiting.run();
        }
        boolean interrupted = false;
        while (job.done.get() < job.chunks) {
            LockSupport.park(job); // a helper is finishing a chunk it claimed; it unparks us after the last one
            // an interrupt makes every park return at once: the wait would spin on a core. The work is not
            // interruptible: the interrupt is set aside and given back when done
            interrupted |= Thread.interrupted();
            final Runnable hook = afterPark;
            if (hook != null) {
                hook.run();
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        job.work = null; // a helper task the pool has not run yet must not keep what the work refers to alive
        final Throwable t = job.failure;
        if (t instanceof RuntimeException) {
            throw (RuntimeException) t;
        } else if (t instanceof Error) {
            throw (Error) t;
        }
    }

    /** Claims and runs chunks until none is left. */
    private void runChunks() {
        int i;
        while ((i = next.getAndIncrement()) < chunks) {
            try {
                final long at = i * chunk;
                work.run(at, Math.min(chunk, bytes - at));
            } catch (RuntimeException | Error e) {
                if (failure == null) {
                    failure = e; // rethrown by the caller: a helper's thread must not swallow it
                }
            } finally {
                // counted whatever is thrown, where (an asynchronous error): a claimed chunk never counted would
                // leave the caller parked for ever
                if (done.incrementAndGet() == chunks) {
                    LockSupport.unpark(caller);
                }
            }
        }
    }
}
