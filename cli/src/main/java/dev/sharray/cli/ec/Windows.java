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
     * @param c0     first column of the window
     * @param length columns in the window
     * @param parts  how many pieces at most
     * @return {@code {c0, start, length}} parts covering the window, {@code start} relative to {@code c0}
     */
    static List<long[]> split(long c0, long length, int parts) {
        List<long[]> out = new ArrayList<>();
        int n = (int) Math.max(1, Math.min(parts, length / MIN_PART));
        long step = (length + n - 1) / n;
        step = (step + 63) & ~63L;
        for (long s = 0; s < length; s += step) {
            out.add(new long[] {c0, s, Math.min(step, length - s)});
        }
        return out;
    }
}
