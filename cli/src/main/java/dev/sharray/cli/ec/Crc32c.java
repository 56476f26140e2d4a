package dev.sharray.cli.ec;

/**
 * CRC-32C of a concatenation from the CRCs of its parts, so workers can checksum the parts of a shard they
 * coded and the parts combine in order: {@code combine(crc(A), crc(B), |B|) == crc(A || B)}.
 *
 * <p>Appending {@code |B|} zero bytes to A multiplies its CRC by {@code x^(8|B|)} modulo the polynomial, so
 * {@code crc(A || B) = crc(A) * x^(8|B|) mod P  xor  crc(B)}. The power is a product of the precomputed
 * {@code x^(2^k)}, one per set bit of {@code 8|B|}: a few dozen carry-less steps per call, no allocation.
 */
public final class Crc32c {
    private static final int POLY = 0x82F63B78; // reflected Castagnoli polynomial
    private static final int ONE = 0x80000000; // x^0 in the reflected representation
    /** {@code X_POW_2K[k] = x^(2^k) mod P}. */
    private static final int[] X_POW_2K = new int[3 + 64]; // 8 n for any long n

    static {
        int p = 1 << 30; // x^1
        X_POW_2K[0] = p;
        for (int k = 1; k < X_POW_2K.length; k++) {
            p = multiply(p, p);
            X_POW_2K[k] = p;
        }
    }

    private Crc32c() {
    }

    /**
     * @param crc1 CRC-32C of the first part
     * @param crc2 CRC-32C of the second part
     * @param len2 length of the second part in bytes
     * @return CRC-32C of both parts one after the other
     */
    public static int combine(int crc1, int crc2, long len2) {
        if (len2 <= 0) {
            return crc1;
        }
        return multiply(xPow8n(len2), crc1) ^ crc2;
    }

    /** @return {@code x^(8 n) mod P} */
    private static int xPow8n(long n) {
        int p = ONE;
        int k = 3; // 8 n = n << 3
        for (long bits = n; bits != 0; bits >>>= 1, k++) {
            if ((bits & 1) != 0) {
                p = multiply(X_POW_2K[k], p);
            }
        }
        return p;
    }

    /** @return {@code a * b mod P}, both reflected */
    private static int multiply(int a, int b) {
        int product = 0;
        int bb = b;
        for (int m = ONE; m != 0; m >>>= 1) {
            if ((a & m) != 0) {
                product ^= bb;
            }
            bb = (bb & 1) != 0 ? (bb >>> 1) ^ POLY : bb >>> 1;
        }
        return product;
    }
}
