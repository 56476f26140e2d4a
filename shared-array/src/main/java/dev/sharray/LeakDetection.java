package dev.sharray;

/**
 * How unreleased arrays are reported (never freed): set with {@code -Dsharray.leakDetection=} or
 * {@link SharedArrays#setLeakDetection(LeakDetection)}.
 */
public enum LeakDetection {
    /** No tracking at all. */
    DISABLED,
    /** Tracks a sample of handles (one in {@code sharray.leakDetection.samplingInterval}, default 16). */
    SIMPLE,
    /** Tracks every handle and records where it was created. */
    PARANOID
}
