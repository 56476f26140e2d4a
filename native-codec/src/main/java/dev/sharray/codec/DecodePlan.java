package dev.sharray.codec;

/**
 * How to rebuild the shards missing in one erasure pattern: which k survivors to read, which shards
 * to write (missing data first, then missing parity) and the prepared decode tables. Immutable.
 */
final class DecodePlan {
    final int[] survivors;
    /** Missing data indexes followed by missing parity indexes. */
    final int[] missing;
    final int missingData;
    /** Rows for every missing shard, or null when none is missing. */
    final Tables all;
    /** The first {@link #missingData} rows only, or null when no data shard is missing. */
    final Tables dataOnly;
    /**
     * Whether the plan is meant for the codec's cache (shared by calls until the codec is unreachable); if not,
     * it belongs to the one call that made it, which frees its tables when done ({@link #free()}).
     */
    final boolean cached;

    private DecodePlan(int[] survivors, int[] missing, int missingData, Tables all, Tables dataOnly, boolean cached) {
        this.survivors = survivors;
        this.missing = missing;
        this.missingData = missingData;
        this.all = all;
        this.dataOnly = dataOnly;
        this.cached = cached;
    }

    /** Frees the tables now (a plan no call uses any more, never a cached one); idempotent. */
    void free() {
        if (all != null) {
            all.free();
        }
        if (dataOnly != null) {
            dataOnly.free();
        }
    }

    /**
     * The first k present rows of the generator form an invertible square S (any k rows do, for both
     * matrices); S^-1 maps the survivors back to the data, and generator row r times S^-1 maps them
     * to any parity shard r.
     *
     * @param cached whether the plan goes into the codec's cache (see {@link #cached})
     */
    static DecodePlan create(int[][] generator, int k, boolean[] present, Engine engine, boolean cached) {
        int n = generator.length;
        int[] survivors = new int[k];
        int[] missing = new int[n];
        int s = 0;
        int nm = 0;
        int md = 0;
        for (int i = 0; i < n; i++) {
            if (present[i]) {
                if (s < k) {
                    survivors[s++] = i;
                }
            } else {
                missing[nm++] = i;
                if (i < k) {
                    md++;
                }
            }
        }
        int[] miss = java.util.Arrays.copyOf(missing, nm);
        if (nm == 0) {
            return new DecodePlan(survivors, miss, 0, null, null, cached);
        }
        int[][] decode = GfMatrix.invert(GfMatrix.rows(generator, survivors));
        int[][] rows = new int[nm][];
        for (int r = 0; r < nm; r++) {
            int idx = miss[r];
            rows[r] = idx < k ? decode[idx].clone()
                : GfMatrix.multiply(new int[][] {generator[idx]}, decode)[0];
        }
        Tables dataOnly = md == 0 ? null : engine.prepare(java.util.Arrays.copyOf(rows, md));
        return new DecodePlan(survivors, miss, md, engine.prepare(rows), dataOnly, cached);
    }
}
