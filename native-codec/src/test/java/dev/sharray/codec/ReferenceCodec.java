package dev.sharray.codec;

/**
 * The obvious byte-at-a-time encoder straight from the generator matrix: the oracle the fast kernels
 * are checked against.
 */
final class ReferenceCodec {
    private ReferenceCodec() {
    }

    static void encode(Matrix matrix, int k, int m, byte[][] shards) {
        int[][] g = matrix.generate(k, m);
        int len = shards[0].length;
        for (int p = 0; p < m; p++) {
            for (int i = 0; i < len; i++) {
                int v = 0;
                for (int j = 0; j < k; j++) {
                    v ^= Galois.mul(g[k + p][j], shards[j][i] & 0xff);
                }
                shards[k + p][i] = (byte) v;
            }
        }
    }
}
