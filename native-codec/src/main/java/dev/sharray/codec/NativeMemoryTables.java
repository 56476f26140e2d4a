package dev.sharray.codec;

import com.sun.jna.Memory;
import com.sun.jna.Pointer;

/**
 * Tables the C kernels read by address from native memory (the NATIVE and ISAL backends); subclasses fill
 * {@link #address} in their own layout. Freed by {@link #free()}, or by JNA's cleaner once unreachable.
 */
abstract class NativeMemoryTables extends Tables {
    private final Memory memory;
    final long address;

    NativeMemoryTables(int rows, int cols, long bytes) {
        super(rows, cols);
        memory = Tables.allocateNative(bytes);
        address = Pointer.nativeValue(memory);
    }

    @Override
    final long bytes() {
        return memory.size();
    }

    @Override
    final void free() {
        Tables.freeNative(memory);
    }
}
