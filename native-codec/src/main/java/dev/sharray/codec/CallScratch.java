package dev.sharray.codec;

import java.util.Arrays;

/**
 * One thread's reusable argument arrays for engine calls (a virtual thread's, for one call: {@link ScratchSlot}), so a call needs none of its own (on {@code byte[][]}
 * shards it allocates nothing; see docs/codec.md for the other forms). Heap references
 * are cleared after each call so the scratch never keeps a caller's shards alive.
 */
final class CallScratch {
    private static final ScratchSlot<CallScratch> LOCAL = new ScratchSlot<>(CallScratch::new);

    final byte[][] src = new byte[ErasureCodec.MAX_SHARDS][];
    final byte[][] dst = new byte[ErasureCodec.MAX_SHARDS][];
    final long[] srcAddr = new long[ErasureCodec.MAX_SHARDS];
    final long[] dstAddr = new long[ErasureCodec.MAX_SHARDS];
    /** Each direct buffer shard's address, as {@link Checks#buffers} read it. */
    final long[] shardAddr = new long[ErasureCodec.MAX_SHARDS];
    final boolean[] writable = new boolean[ErasureCodec.MAX_SHARDS];
    /** The call's copy of the caller's present flags (see {@link Checks#present}). */
    final boolean[] present = new boolean[ErasureCodec.MAX_SHARDS];
    final PatternKey probe = new PatternKey();
    /** The arenas of the call's direct buffers, held while C works on them. */
    final BufferSessions sessions = new BufferSessions();

    static CallScratch get() {
        return LOCAL.get();
    }

    /** @return how many were built (for tests) */
    static long created() {
        return LOCAL.created();
    }

    void clear() {
        Arrays.fill(src, null);
        Arrays.fill(dst, null);
    }
}
