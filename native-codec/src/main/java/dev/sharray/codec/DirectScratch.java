package dev.sharray.codec;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * One thread's native work memory for the address-based engines (a virtual thread's, for one call:
 * {@link ScratchSlot}): pointer arrays handed to C, and a
 * staging area for heap shards. Never shared between threads (kernels are stateless; scratch is not).
 */
final class DirectScratch {
    /** Bytes of each shard staged per kernel call on the heap paths: the staged stripe stays in L2. */
    static final int CHUNK = 16 * 1024;
    private static final int SLOT = ErasureCodec.MAX_SHARDS * Long.BYTES;
    private static final ScratchSlot<DirectScratch> LOCAL = new ScratchSlot<>(DirectScratch::new);

    private final ByteBuffer pointers = ByteBuffer.allocateDirect(4 * SLOT).order(ByteOrder.nativeOrder());
    private final long pointerBase = address(pointers);
    final long[] stagedSrc = new long[ErasureCodec.MAX_SHARDS];
    final long[] stagedDst = new long[ErasureCodec.MAX_SHARDS];
    final long[] stagedWork = new long[ErasureCodec.MAX_SHARDS];
    private ByteBuffer staging;
    private long stagingBase;

    static DirectScratch get() {
        return LOCAL.get();
    }

    /** @return how many were built (for tests) */
    static long created() {
        return LOCAL.created();
    }

    /** Writes {@code count} addresses into pointer slot {@code slot} (0..3) and returns its address. */
    long pointers(int slot, long[] addresses, int count, long offset) {
        int base = slot * SLOT;
        for (int i = 0; i < count; i++) {
            pointers.putLong(base + i * Long.BYTES, addresses[i] + offset);
        }
        return pointerBase + base;
    }

    /** The staging area, grown to at least {@code bytes}; its contents are undefined. */
    ByteBuffer staging(int bytes) {
        if (staging == null || staging.capacity() < bytes) {
            staging = ByteBuffer.allocateDirect(bytes);
            stagingBase = address(staging);
        }
        return staging;
    }

    long stagingAddress() {
        return stagingBase;
    }

    /** @return the bytes of staging memory this thread keeps (for tests) */
    int stagingCapacity() {
        return staging == null ? 0 : staging.capacity();
    }

    private static long address(ByteBuffer b) {
        return Buffers.address(b); // not through JNA: the Java engine stages here too (update) when JNA cannot load
    }
}
