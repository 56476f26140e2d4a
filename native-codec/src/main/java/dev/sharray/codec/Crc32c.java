package dev.sharray.codec;

import java.lang.ref.Reference;
import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * CRC-32C (Castagnoli), the value {@link CRC32C} computes, over buffers that may be mapped files, and the
 * CRC of a concatenation from the CRCs of its parts.
 *
 * <p>{@link #update} is safe on a mapped buffer whose file shrinks under it: it throws
 * {@link MemoryFaultException} where the JDK's {@code CRC32C.update} ends the JVM with {@code SIGBUS}. Direct
 * buffers are checksummed by libsharraycodec under its SIGBUS guard (carry-less multiply folding with
 * AVX-512 VPCLMULQDQ, else three interleaved {@code crc32} streams), about as fast as the JDK's intrinsic
 * from 1 MiB on ({@code Crc32cBench}); heap buffers by the JDK. Without that library, direct buffers are
 * copied to the heap in chunks and checksummed there; a fault is then the JVM's {@link InternalError}, which
 * it may raise a little after the access.
 *
 * <p>{@link #combine}: appending {@code |B|} zero bytes to A multiplies its CRC by {@code x^(8|B|)} modulo the
 * polynomial, so {@code crc(A || B) = crc(A) * x^(8|B|) mod P  xor  crc(B)}. The power is a product of the
 * precomputed {@code x^(2^k)}, one per set bit of {@code 8|B|}: a few dozen carry-less steps per call, no
 * allocation.
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

    /** Bytes per heap copy when a direct buffer is checksummed without the native library. */
    private static final int COPY_CHUNK = 64 * 1024;

    private Crc32c() {
    }

    /**
     * Continues a CRC-32C over the buffer's remaining bytes; the buffer's position is not changed.
     *
     * @param value  the CRC-32C value so far ({@code (int) CRC32C.getValue()}), 0 to start
     * @param buffer the bytes, from its position to its limit
     * @return the CRC-32C value after them
     * @throws NullPointerException if {@code buffer} is null
     * @throws MemoryFaultException if the buffer's memory faulted (its mapped file was truncated)
     * @throws IllegalStateException if the buffer belongs to a memory segment whose arena is closed (its memory
     *                               is held while the checksum runs: see {@link ErasureCodec})
     */
    public static int update(int value, ByteBuffer buffer) {
        if (buffer == null) {
            throw new NullPointerException("buffer must not be null");
        }
        final int position = buffer.position(); // read once: the native code must see what was checked
        final int length = Math.max(0, buffer.limit() - position);
        if (length == 0) {
            return value;
        }
        if (buffer.isDirect() && NativeLib.available()) {
            long result;
            ScratchLoans.begin();
            try {
                final BufferSessions sessions = CallScratch.get().sessions;
                sessions.acquire(buffer, "the buffer");
                try {
                    result = NativeLib.sc_crc32c(value, Buffers.base(buffer) + position, length);
                } finally {
                    sessions.releaseAll(); // its arena, if it has one, may close again
                    Reference.reachabilityFence(buffer); // the memory stays mapped until the C code returns
                }
            } finally {
                ScratchLoans.end();
            }
            if (result == NativeLib.FAULT) {
                throw MemoryFaultException.inChecksum();
            }
            return (int) result;
        }
        return combine(value, jdkCrc(buffer, position, length), length);
    }

    /**
     * The JDK's CRC-32C of {@code [position, position + length)}. Direct memory is copied to the heap first: the
     * JVM turns a fault in a copy into an InternalError, but one in its checksum intrinsic ends it.
     */
    private static int jdkCrc(ByteBuffer buffer, int position, int length) {
        CRC32C crc = new CRC32C();
        if (buffer.hasArray()) {
            crc.update(buffer.array(), buffer.arrayOffset() + position, length);
            return (int) crc.getValue();
        }
        byte[] chunk = new byte[Math.min(COPY_CHUNK, length)];
        for (int done = 0, n; done < length; done += n) {
            n = Math.min(chunk.length, length - done);
            buffer.get(position + done, chunk, 0, n);
            crc.update(chunk, 0, n);
        }
        return (int) crc.getValue();
    }

    /**
     * @param crc1 CRC-32C of the first part
     * @param crc2 CRC-32C of the second part
     * @param len2 length of the second part in bytes, at least 0 (0: the result is {@code crc1})
     * @return CRC-32C of both parts one after the other
     * @throws IllegalArgumentException if {@code len2} is negative
     */
    public static int combine(int crc1, int crc2, long len2) {
        if (len2 < 0) {
            throw new IllegalArgumentException("len2 must not be negative, got " + len2);
        }
        if (len2 == 0) {
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
