package dev.sharray.codec;

/** The generator matrix of a codec; both are systematic (data shards are stored unchanged). */
public enum Matrix {
    /** Systematic Vandermonde, byte-identical to Backblaze JavaReedSolomon and klauspost/reedsolomon's default. */
    VANDERMONDE,
    /** Cauchy, byte-identical to ISA-L's {@code gf_gen_cauchy1_matrix} and Hadoop's {@code rs} codec. */
    CAUCHY;

    /** The full (k + m) x k generator matrix. */
    int[][] generate(int k, int m) {
        return this == VANDERMONDE ? GfMatrix.vandermonde(k, m) : GfMatrix.cauchy(k, m);
    }
}
