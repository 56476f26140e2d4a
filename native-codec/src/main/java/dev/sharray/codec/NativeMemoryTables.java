package dev.sharray.codec;

import com.sun.jna.Memory;
import com.sun.jna.Pointer;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Tables the C kernels read by address from native memory (the NATIVE and ISAL backends); subclasses fill
 * {@link #address} in their own layout. Freed by {@link #free()}, or by JNA's cleaner once unreachable.
 */
abstract class NativeMemoryTables extends Tables {
    /**
     * Bytes of native tables allocated and not freed by {@link #free()} (those the garbage collector frees are
     * not subtracted): for tests, which compare it before and after calls.
     */
    static final AtomicLong BYTES_NOT_FREED = new AtomicLong();

    private final Memory memory;
    final long address;

    NativeMemoryTables(int rows, int cols, long bytes) {
        super(rows, cols);
        memory = new Memory(bytes);
        BYTES_NOT_FREED.addAndGet(bytes);
        address = Pointer.nativeValue(memory);
    }

    @Override
    final long bytes() {
        return memory.size();
    }

    /** Frees the memory once, however often it is called (a raced plan and its call may both ask). */
    @Override
    final void free() {
        synchronized (memory) {
            if (memory.valid()) {
                BYTES_NOT_FREED.addAndGet(-memory.size());
                memory.close();
            }
        }
    }
}
