package dev.sharray.cli.ec;

import dev.sharray.codec.Matrix;

/**
 * What a worker needs to encode part of a window of a file: it maps the input itself and writes parity
 * into the shared parity window, so nothing but this record and a descriptor crosses.
 *
 * @param input       the input file
 * @param length      its length
 * @param shardLength bytes per shard
 * @param k           data shards
 * @param m           parity shards
 * @param matrix      generator matrix
 * @param window      row length of the shared parity window array
 */
public record EncodeJob(String input, long length, long shardLength, int k, int m, Matrix matrix, long window)
    implements WindowJob {
}
