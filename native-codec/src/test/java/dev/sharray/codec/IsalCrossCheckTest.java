package dev.sharray.codec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.jna.Memory;
import com.sun.jna.Pointer;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * CAUCHY must be byte-identical to ISA-L used on its own terms: its gf_gen_cauchy1_matrix, its
 * ec_init_tables and ec_encode_data. ISA-L is required here (run-tests.sh installs libisal2): a
 * missing library fails this test rather than skipping it.
 */
class IsalCrossCheckTest {

    @Test
    void cauchyParityEqualsIsaLsOwnEncoding() {
        assertTrue(IsalLib.available(), "ISA-L (libisal.so.2) must be installed: " + IsalLib.failure());
        Random rnd = new Random(2024);
        for (int[] km : new int[][] {{4, 2}, {6, 3}, {10, 4}, {17, 3}, {12, 12}, {100, 30}}) {
            int k = km[0];
            int m = km[1];
            int n = k + m;
            byte[] isalMatrix = new byte[n * k];
            IsalLib.gf_gen_cauchy1_matrix(isalMatrix, n, k);
            assertArrayEquals(GfMatrix.flatten(GfMatrix.cauchy(k, m)), isalMatrix, "generator for RS(" + k + "," + m + ")");

            for (int len : new int[] {1, 63, 64, 1000, 65537}) {
                byte[][] data = Codecs.randomStripe(rnd, k, m, len);
                byte[][] isalParity = isalEncode(isalMatrix, k, m, data, len);
                for (ErasureCodec codec : Codecs.all(k, m, Matrix.CAUCHY)) {
                    byte[][] s = Codecs.copy(data);
                    codec.encode(s);
                    for (int p = 0; p < m; p++) {
                        assertArrayEquals(isalParity[p], s[k + p], codec + " len " + len + " parity " + p);
                    }
                }
            }
        }
    }

    /** ISA-L's documented encode sequence, straight through JNA, independent of our engine classes. */
    private static byte[][] isalEncode(byte[] matrix, int k, int m, byte[][] shards, int len) {
        byte[] parityRows = java.util.Arrays.copyOfRange(matrix, k * k, (k + m) * k);
        try (Memory tables = new Memory(32L * k * m);
             Memory data = new Memory((long) k * len);
             Memory coding = new Memory((long) m * len);
             Memory dataPtrs = new Memory(8L * k);
             Memory codingPtrs = new Memory(8L * m)) {
            IsalLib.ec_init_tables(k, m, parityRows, Pointer.nativeValue(tables));
            for (int j = 0; j < k; j++) {
                data.write((long) j * len, shards[j], 0, len);
                dataPtrs.setPointer(8L * j, data.share((long) j * len));
            }
            for (int p = 0; p < m; p++) {
                codingPtrs.setPointer(8L * p, coding.share((long) p * len));
            }
            IsalLib.ec_encode_data(len, k, m, Pointer.nativeValue(tables), Pointer.nativeValue(dataPtrs),
                Pointer.nativeValue(codingPtrs));
            byte[][] parity = new byte[m][len];
            for (int p = 0; p < m; p++) {
                coding.read((long) p * len, parity[p], 0, len);
            }
            return parity;
        }
    }
}
