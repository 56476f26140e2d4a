package dev.sharray.cli.ec;

import java.util.ArrayList;
import java.util.List;

/** Splits shard columns into windows (bounded memory) and windows into parts (one per worker). */
final class Windows {
    /** Columns per window: each shard contributes this many bytes per window. */
    static final int WINDOW = 4 << 20;
    /** Shared memory for the double-buffered rows of one window, whatever the number of rows. */
    private static final long ROWS_BUDGET = 32L << 20;
    /** Smallest part worth a task. */
    private static final int MIN_PART = 64 << 10;

    private Windows() {
    }

    /**
     * @param rows        rows the coder keeps per window (parity rows, or rows being rebuilt)
     * @param shardLength bytes per shard
     * @return columns per window: {@link #WINDOW} at most, less when many rows would make the double-buffered
     *         shared memory ({@code 2 * rows * window}) grow past {@code 2 * 32 MiB}, at least 64 KiB
     */
    static int columns(int rows, long shardLength) {
        long window = Math.min(Math.max(64 << 10, (ROWS_BUDGET / Math.max(1, rows)) & ~63L), WINDOW);
        return (int) Math.min(window, Math.max(1, shardLength));
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
