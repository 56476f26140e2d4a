package dev.sharray.codec;

import com.sun.jna.Memory;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A rows x cols coefficient matrix expanded into whatever lookup form one engine's kernels read.
 * Built once (per codec, or per erasure pattern) and then only read, so any number of threads share it.
 */
abstract class Tables {
    /**
     * Bytes of native tables allocated and not freed by {@link #free()} (those the garbage collector frees are
     * not subtracted): for tests, which compare it before and after calls.
     */
    static final AtomicLong NATIVE_BYTES_NOT_FREED = new AtomicLong();

    final int rows;
    final int cols;

    Tables(int rows, int cols) {
        this.rows = rows;
        this.cols = cols;
    }

    /** @return the bytes its lookup tables take (native memory, or the Java heap for the JAVA backend) */
    abstract long bytes();

    /**
     * Frees native tables now rather than when the garbage collector finds them unreachable; afterwards they
     * must not be used. Idempotent; nothing to do for heap tables.
     */
    void free() {
    }

    /** Counts a new native allocation of tables (see {@link #NATIVE_BYTES_NOT_FREED}) and returns it. */
    static Memory allocateNative(long bytes) {
        Memory memory = new Memory(bytes);
        NATIVE_BYTES_NOT_FREED.addAndGet(bytes);
        return memory;
    }

    /** Frees native tables from {@link #allocateNative} once, however often it is called. */
    static void freeNative(Memory memory) {
        synchronized (memory) {
            if (memory.valid()) {
                NATIVE_BYTES_NOT_FREED.addAndGet(-memory.size());
                memory.close();
            }
        }
    }
}
