package dev.sharray;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * Which 64 KiB blocks of one mapping this process has already populated ({@code MADV_POPULATE_WRITE}), so
 * that {@link SharedArray#prefault()} costs nothing the second time: populating pages that are already
 * mapped still walks their page tables (~20 ms per GiB here), which a task that prefaults its chunk on
 * every call would otherwise pay every time. Only blocks a call covered whole are recorded.
 *
 * <p>Lives exactly as long as its mapping, so a recorded block stays mapped (short of the kernel reclaiming
 * it, after which a touch faults it in as usual). Thread-safe: two threads populating the same block both
 * do, harmlessly.
 */
final class PopulatedBlocks {
    /** 64 KiB: a view that starts or ends inside a block populates at most that much again per call. */
    static final int BLOCK_SHIFT = 16;
    static final long BLOCK = 1L << BLOCK_SHIFT;
    private static final VarHandle BITS = MethodHandles.arrayElementVarHandle(long[].class);

    private final long mappingLength;
    private final long[] bits;

    /** @param mappingLength length of the mapping, in bytes */
    PopulatedBlocks(long mappingLength) {
        this.mappingLength = mappingLength;
        final long blocks = (mappingLength + BLOCK - 1) >>> BLOCK_SHIFT;
        this.bits = new long[(int) ((blocks + 63) >>> 6)];
    }

    /** Something that populates {@code [offset, offset + length)} of the mapping; false when it could not. */
    interface Populator {
        boolean populate(long offset, long length);
    }

    /**
     * Populates the parts of {@code [from, to)} (offsets in the mapping) not recorded yet, in runs of
     * consecutive blocks, and records the blocks the range covers whole.
     *
     * @return false when a populate call failed (pages are then faulted on first touch as usual)
     */
    boolean populate(long from, long to, Populator populator) {
        boolean ok = true;
        long runStart = -1;
        for (long b = from >>> BLOCK_SHIFT; b << BLOCK_SHIFT < to; b++) {
            final long blockStart = b << BLOCK_SHIFT;
            if (runStart < 0 && wholeWordSet(b)) {
                b += 63; // 64 recorded blocks (4 MiB) at once: a repeat call on a big array is a short scan
                continue;
            }
            if (isSet(b)) {
                if (runStart >= 0) {
                    ok &= run(runStart, blockStart, populator);
                    runStart = -1;
                }
                continue;
            }
            if (runStart < 0) {
                runStart = Math.max(from, blockStart);
            }
        }
        if (runStart >= 0) {
            ok &= run(runStart, to, populator);
        }
        return ok;
    }

    private boolean run(long from, long to, Populator populator) {
        if (!populator.populate(from, to - from)) {
            return false;
        }
        // record only whole blocks: a partial one may hold pages nobody populated
        for (long b = (from + BLOCK - 1) >>> BLOCK_SHIFT; b << BLOCK_SHIFT < to; b++) {
            final long blockEnd = Math.min(mappingLength, (b + 1) << BLOCK_SHIFT);
            if (blockEnd <= to) {
                BITS.getAndBitwiseOr(bits, (int) (b >>> 6), 1L << (b & 63));
            }
        }
        return true;
    }

    /** @return bytes of {@code [from, to)} that lie in blocks not recorded as populated */
    long unrecordedBytes(long from, long to) {
        long n = 0;
        for (long b = from >>> BLOCK_SHIFT; b << BLOCK_SHIFT < to; b++) {
            if (wholeWordSet(b)) {
                b += 63;
                continue;
            }
            if (!isSet(b)) {
                n += Math.min(to, (b + 1) << BLOCK_SHIFT) - Math.max(from, b << BLOCK_SHIFT);
            }
        }
        return n;
    }

    /** @return whether {@code b} starts a word of the record whose 64 blocks are all recorded */
    private boolean wholeWordSet(long b) {
        return (b & 63) == 0 && (long) BITS.getAcquire(bits, (int) (b >>> 6)) == -1L;
    }

    /** @return whether block {@code b} was recorded as populated */
    boolean isSet(long b) {
        return ((long) BITS.getAcquire(bits, (int) (b >>> 6)) & (1L << (b & 63))) != 0;
    }

    /** @return how many bytes of the mapping lie in recorded blocks (for tests) */
    long populatedBytes() {
        long n = 0;
        for (long b = 0; b << BLOCK_SHIFT < mappingLength; b++) {
            if (isSet(b)) {
                n += Math.min(mappingLength, (b + 1) << BLOCK_SHIFT) - (b << BLOCK_SHIFT);
            }
        }
        return n;
    }
}
