package dev.sharray;

import org.agrona.UnsafeApi;

import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * Copies a large heap array into mapped memory on the calling thread and the common {@link ForkJoinPool}'s
 * threads together: one thread copies ~8-10 GB/s here, below what the memory can take (two threads: ~1.8x).
 * The copy is cut into chunks that whoever is free claims in turn, and the caller claims too, so a busy or
 * empty common pool only makes the copy single-threaded, never stalls it; the caller then waits only for
 * chunks a helper has claimed and is copying.
 */
final class ParallelCopy {
    /** Below this a single copy is as fast: starting a helper costs tens of microseconds. */
    static final long MIN_BYTES = 64L << 20;
    private static final long CHUNK = 8L << 20;

    private Object src;
    private final long srcOffset;
    private final long dstAddress;
    private final long bytes;
    private final int chunks;
    private final Thread caller = Thread.currentThread();
    private final AtomicInteger next = new AtomicInteger();
    private final AtomicInteger done = new AtomicInteger();
    private volatile Throwable failure;

    private ParallelCopy(Object src, long srcOffset, long dstAddress, long bytes) {
        this.src = src;
        this.srcOffset = srcOffset;
        this.dstAddress = dstAddress;
        this.bytes = bytes;
        this.chunks = (int) ((bytes + CHUNK - 1) / CHUNK);
    }

    /**
     * Copies {@code bytes} from {@code src} (a primitive array, from {@code srcOffset} as Unsafe counts) to
     * {@code dstAddress}; the caller guarantees the destination stays mapped until this returns.
     */
    static void copy(Object src, long srcOffset, long dstAddress, long bytes) {
        final int helpers = bytes < MIN_BYTES ? 0 : Math.min(ForkJoinPool.getCommonPoolParallelism(), 7);
        if (helpers == 0) {
            UnsafeApi.copyMemory(src, srcOffset, null, dstAddress, bytes);
            return;
        }
        final ParallelCopy job = new ParallelCopy(src, srcOffset, dstAddress, bytes);
        for (int i = 0; i < helpers; i++) {
            ForkJoinPool.commonPool().execute(job::copyChunks);
        }
        job.copyChunks();
        while (job.done.get() < job.chunks) {
            LockSupport.park(job); // a helper is finishing a chunk it claimed; it unparks us after the last one
        }
        job.src = null; // a helper task the pool has not run yet must not keep the array alive
        final Throwable t = job.failure;
        if (t instanceof RuntimeException) {
            throw (RuntimeException) t;
        } else if (t instanceof Error) {
            throw (Error) t;
        }
    }

    /** Claims and copies chunks until none is left. */
    private void copyChunks() {
        int i;
        while ((i = next.getAndIncrement()) < chunks) {
            try {
                final long at = i * CHUNK;
                UnsafeApi.copyMemory(src, srcOffset + at, null, dstAddress + at, Math.min(CHUNK, bytes - at));
            } catch (RuntimeException | Error e) {
                failure = e; // rethrown by the caller: a helper's thread must not swallow it
            }
            if (done.incrementAndGet() == chunks) {
                LockSupport.unpark(caller);
            }
        }
    }
}
