package dev.sharray.codec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class KnownAnswerTest {
    /** Backblaze JavaReedSolomon's and klauspost/reedsolomon's published RS(5,5) answer. */
    @Test
    void vandermondeMatchesPublishedAnswerOnEveryBackend() {
        byte[][] expectedParity = {{12, 13}, {10, 11}, {14, 15}, {90, 91}, {94, 95}};
        for (ErasureCodec codec : Codecs.all(5, 5, Matrix.VANDERMONDE)) {
            byte[][] shards = {{0, 1}, {4, 5}, {2, 3}, {6, 7}, {8, 9}, new byte[2], new byte[2], new byte[2],
                new byte[2], new byte[2]};
            codec.encode(shards);
            for (int p = 0; p < 5; p++) {
                assertArrayEquals(expectedParity[p], shards[5 + p], codec + " parity " + p);
            }
        }
    }

    @Test
    void cauchyMatrixIsIdentityOverInverseXor() {
        int[][] g = ErasureCodec.builder(4, 2).matrix(Matrix.CAUCHY).backend(Backend.JAVA).build().generatorMatrix();
        assertEquals(1, g[2][2]);
        assertEquals(0, g[2][3]);
        for (int i = 4; i < 6; i++) {
            for (int j = 0; j < 4; j++) {
                assertEquals(1, Galois.mul(g[i][j], i ^ j), "row " + i + " col " + j);
            }
        }
    }

    @Test
    void fieldIsPolynomial0x11dWithGenerator2() {
        assertEquals(0x1D, Galois.mul(0x80, 2));
        assertEquals(1, Galois.mul(0x8E, 2)); // 2 * 0x8E = 0x11C ^ 0x11D
        for (int a = 1; a < 256; a++) {
            assertEquals(1, Galois.mul(a, Galois.inv(a)));
        }
    }
}
