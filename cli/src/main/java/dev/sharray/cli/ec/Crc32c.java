package dev.sharray.cli.ec;

/**
 * CRC-32C of a concatenation from the CRCs of its parts, so workers can checksum the parts of a shard they
 * coded and the parts combine in order: {@code combine(crc(A), crc(B), |B|) == crc(A || B)}. This is the
 * GF(2) matrix method of zlib's {@code crc32_combine}, with the Castagnoli polynomial.
 */
public final class Crc32c {
    private static final long POLY = 0x82F63B78L; // reflected Castagnoli polynomial

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
        long[] even = new long[32];
        long[] odd = new long[32];
        odd[0] = POLY;
        long row = 1;
        for (int n = 1; n < 32; n++) {
            odd[n] = row;
            row <<= 1;
        }
        square(even, odd); // two zero bits
        square(odd, even); // four zero bits
        long c1 = crc1 & 0xFFFFFFFFL;
        long len = len2;
        do {
            square(even, odd);
            if ((len & 1) != 0) {
                c1 = times(even, c1);
            }
            len >>= 1;
            if (len == 0) {
                break;
            }
            square(odd, even);
            if ((len & 1) != 0) {
                c1 = times(odd, c1);
            }
            len >>= 1;
        } while (len != 0);
        return (int) (c1 ^ (crc2 & 0xFFFFFFFFL));
    }

    private static long times(long[] mat, long vec) {
        long sum = 0;
        int i = 0;
        long v = vec;
        while (v != 0) {
            if ((v & 1) != 0) {
                sum ^= mat[i];
            }
            v >>>= 1;
            i++;
        }
        return sum;
    }

    private static void square(long[] result, long[] mat) {
        for (int n = 0; n < 32; n++) {
            result[n] = times(mat, mat[n]);
        }
    }
}
