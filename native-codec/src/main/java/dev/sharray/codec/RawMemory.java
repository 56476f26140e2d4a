package dev.sharray.codec;

import java.lang.reflect.Field;
import sun.misc.Unsafe;

/**
 * Copies between native addresses and heap arrays for the Java engine, which must work even when no
 * native library of ours loads. sun.misc.Unsafe is the only copy primitive on both JDK 17 and 25
 * without the foreign-memory API (the project's JVM flags allow its memory access on JDK 24+).
 */
final class RawMemory {
    private static final Unsafe UNSAFE;
    private static final long BYTE_BASE;

    static {
        try {
            Field f = Unsafe.class.getDeclaredField("theUnsafe");
            f.setAccessible(true);
            UNSAFE = (Unsafe) f.get(null);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
        BYTE_BASE = Unsafe.ARRAY_BYTE_BASE_OFFSET;
    }

    private RawMemory() {
    }

    static void read(long address, byte[] dst, int off, int len) {
        UNSAFE.copyMemory(null, address, dst, BYTE_BASE + off, len);
    }

    static void write(byte[] src, int off, long address, int len) {
        UNSAFE.copyMemory(src, BYTE_BASE + off, null, address, len);
    }

    /** Copies {@code len} bytes between native addresses (ranges that do not overlap). */
    static void copy(long from, long to, long len) {
        UNSAFE.copyMemory(from, to, len);
    }

    /** @return the long at a native address (a slot of a pointer array), without allocating */
    static long getLong(long address) {
        return UNSAFE.getLong(address);
    }
}
