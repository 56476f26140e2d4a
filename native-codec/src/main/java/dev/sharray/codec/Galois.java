package dev.sharray.codec;

/**
 * Arithmetic in GF(2^8) with polynomial 0x11D and generator 2, the field Backblaze JavaReedSolomon,
 * klauspost/reedsolomon and ISA-L all use. Tables are built once and only read afterwards.
 */
final class Galois {
    static final int POLYNOMIAL = 0x11D;

    /** EXP[i] = 2^i, doubled in length so EXP[LOG[a] + LOG[b]] needs no modulo. */
    private static final int[] EXP = new int[510];
    private static final int[] LOG = new int[256];
    /** MUL[a << 8 | b] = a * b: VectorEngine's tails and ScalarEngine read one 256-byte row per coefficient. */
    static final byte[] MUL = new byte[256 * 256];

    static {
        int x = 1;
        for (int i = 0; i < 255; i++) {
            EXP[i] = x;
            EXP[i + 255] = x;
            LOG[x] = i;
            x <<= 1;
            if (x >= 256) {
                x ^= POLYNOMIAL;
            }
        }
        for (int a = 0; a < 256; a++) {
            for (int b = 0; b < 256; b++) {
                MUL[a << 8 | b] = (byte) mul(a, b);
            }
        }
    }

    private Galois() {
    }

    static int mul(int a, int b) {
        if (a == 0 || b == 0) {
            return 0;
        }
        return EXP[LOG[a] + LOG[b]];
    }

    static int inv(int a) {
        if (a == 0) {
            throw new ArithmeticException("0 has no inverse in GF(2^8)");
        }
        return EXP[255 - LOG[a]];
    }

    /** a^n with 0^0 = 1, as Backblaze's galExp (the Vandermonde matrix depends on that convention). */
    static int pow(int a, int n) {
        if (n == 0) {
            return 1;
        }
        if (a == 0) {
            return 0;
        }
        return EXP[(LOG[a] * n) % 255];
    }
}
