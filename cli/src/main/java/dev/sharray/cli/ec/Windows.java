package dev.sharray.cli.ec;

import java.util.ArrayList;
import java.util.List;

/** Splits shard columns into windows (bounded memory) and windows into parts (one per worker). */
final class Windows {
    /** Columns per window: each shard contributes this many bytes per window. */
    static final int WINDOW = 4 << 20;
    /** Smallest part worth a task. */
    private static final int MIN_PART = 64 << 10;

    private Windows() {
    }

    /**
     * @param offset first column of the range
     * @param length columns in the range
     * @param parts  how many pieces at most
     * @return {@code [start, length]} pairs covering the range, relative to {@code offset}'s window
     */
    static List<long[]> split(long offset, long length, int parts) {
        List<long[]> out = new ArrayList<>();
        int n = (int) Math.max(1, Math.min(parts, length / MIN_PART));
        long step = (length + n - 1) / n;
        step = (step + 63) & ~63L;
        for (long s = 0; s < length; s += step) {
            out.add(new long[] {offset + s, Math.min(step, length - s)});
        }
        return out;
    }
}
