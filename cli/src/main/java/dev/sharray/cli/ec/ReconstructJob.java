package dev.sharray.cli.ec;

import dev.sharray.codec.Matrix;
import java.util.List;

/**
 * What a worker needs to rebuild part of a window of a shard set: it maps the intact shard files itself and
 * writes the rebuilt shards into rows of a shared scratch window.
 *
 * @param paths       shard file paths by index
 * @param present     which shards are intact
 * @param rowOf       scratch row of each non-intact shard (-1 for intact ones)
 * @param k           data shards
 * @param m           parity shards
 * @param matrix      generator matrix
 * @param window      row length of the scratch array
 * @param dataOnly    rebuild only data shards
 */
public record ReconstructJob(List<String> paths, boolean[] present, int[] rowOf, int k, int m, Matrix matrix,
                             long window, boolean dataOnly) implements WindowJob {
}
