package dev.sharray.codec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.ByteBuffer;
import java.util.Random;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

class Crc32cTest {
    private static int crc(byte[] b, int off, int len) {
        CRC32C c = new CRC32C();
        c.update(b, off, len);
        return (int) c.getValue();
    }

    @Test
    void combineMatchesTheCrcOfTheConcatenation() {
        Random r = new Random(1);
        byte[] data = new byte[1 << 20];
        r.nextBytes(data);
        for (int t = 0; t < 200; t++) {
            int a = r.nextInt(data.length);
            int b = r.nextInt(data.length - a + 1);
            assertEquals(crc(data, 0, a + b), Crc32c.combine(crc(data, 0, a), crc(data, a, b), b), a + "+" + b);
        }
        assertEquals(crc(data, 0, 5), Crc32c.combine(crc(data, 0, 5), crc(data, 5, 0), 0));
    }

    /**
     * A negative length is no part's length. Before, combine(1, 2, -5) returned 1 (crc1, as for an empty second
     * part) without a word, and a null buffer failed with the JVM's generic NullPointerException.
     */
    @Test
    void aNegativeLengthOrANullBufferIsRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Crc32c.combine(1, 2, -5));
        assertEquals("len2 must not be negative, got -5", e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Crc32c.combine(1, 2, Long.MIN_VALUE));
        NullPointerException npe = assertThrows(NullPointerException.class, () -> Crc32c.update(0, null));
        assertEquals("buffer must not be null", npe.getMessage());
    }

    @Test
    void updateMatchesTheJdkOnHeapAndDirectBuffersFromAnyStartingValue() {
        Random r = new Random(2);
        byte[] data = new byte[200_000];
        r.nextBytes(data);
        ByteBuffer direct = ByteBuffer.allocateDirect(data.length).put(data).clear();
        ByteBuffer heap = ByteBuffer.wrap(data);
        // lengths across the native code's block sizes: 3 x 256 and 3 x 8192 bytes, and their tails
        int[] lengths = {0, 1, 7, 8, 9, 767, 768, 769, 3 * 8192 - 1, 3 * 8192, 3 * 8192 + 8 * 3 + 5, 100_000, 199_000};
        for (int t = 0; t < 300; t++) {
            int len = t < lengths.length ? lengths[t] : r.nextInt(t % 2 == 0 ? 2_000 : 199_000);
            int off = r.nextInt(data.length - len + 1);
            int prefix = r.nextInt(off + 1); // a CRC so far over [off - prefix, off)
            int start = crc(data, off - prefix, prefix);
            int expected = crc(data, off - prefix, prefix + len);
            for (ByteBuffer b : new ByteBuffer[] {direct, heap}) {
                ByteBuffer view = b.duplicate().position(off).limit(off + len);
                assertEquals(expected, Crc32c.update(start, view), (b.isDirect() ? "direct " : "heap ") + off + "+" + len);
                assertEquals(off, view.position(), "the position is not moved");
            }
        }
    }

    @Test
    void everyNativePathAgreesWithTheJdk() throws java.io.IOException {
        // Crc32c.update takes the fastest path only; the slower ones serve CPUs without AVX-512 or SSE4.2
        assertEquals(-2, NativeLib.sc_crc32c_path(3, 0, 0, 0), "no path 3");
        Random r = new Random(4);
        byte[] data = new byte[100_000];
        r.nextBytes(data);
        ByteBuffer direct = ByteBuffer.allocateDirect(data.length).put(data).clear();
        long base = Buffers.base(direct);
        final java.util.Set<String> flags = cpuFlags();
        final boolean[] cpuHas = {true, flags.contains("sse4_2"),
            flags.containsAll(java.util.List.of("sse4_2", "avx512f", "vpclmulqdq", "pclmulqdq"))};
        for (int path = 0; path <= 2; path++) {
            // a path this CPU lacks answers -2, and one it has is taken: the native code reads the CPU as Linux does
            if (!cpuHas[path]) {
                assertEquals(-2, NativeLib.sc_crc32c_path(path, 0, base, 1), "path " + path + " without its CPU features");
                continue;
            }
            for (int t = 0; t < 200; t++) {
                int len = t < 40 ? t * 641 % 30_000 : r.nextInt(t % 2 == 0 ? 1_000 : data.length);
                int off = r.nextInt(data.length - len + 1);
                int start = r.nextInt();
                int expected = Crc32c.combine(start, crc(data, off, len), len);
                assertEquals(expected, (int) NativeLib.sc_crc32c_path(path, start, base + off, len),
                    "path " + path + ", " + off + "+" + len);
            }
        }
        java.lang.ref.Reference.reachabilityFence(direct);
    }

    /** @return the CPU's feature flags as Linux names them ({@code /proc/cpuinfo}) */
    private static java.util.Set<String> cpuFlags() throws java.io.IOException {
        for (String line : java.nio.file.Files.readAllLines(java.nio.file.Path.of("/proc/cpuinfo"))) {
            if (line.startsWith("flags")) {
                final String[] names = line.substring(line.indexOf(':') + 1).trim().split("\\s+");
                return new java.util.HashSet<>(java.util.Arrays.asList(names));
            }
        }
        throw new AssertionError("no flags line in /proc/cpuinfo");
    }

    @Test
    void combineHandlesPartsLongerThan4GiB() {
        byte[] head = "sharray".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        java.nio.ByteBuffer zeros = java.nio.ByteBuffer.allocateDirect(1 << 20);
        long tail = (4L << 30) + 123; // past 2^32 bytes: exercises the high powers of x
        CRC32C whole = new CRC32C();
        whole.update(head);
        CRC32C part = new CRC32C();
        for (long done = 0; done < tail; ) {
            int n = (int) Math.min(zeros.capacity(), tail - done);
            whole.update(zeros.duplicate().limit(n));
            part.update(zeros.duplicate().limit(n));
            done += n;
        }
        assertEquals((int) whole.getValue(), Crc32c.combine(crc(head, 0, head.length), (int) part.getValue(), tail));
    }

    @Test
    void combineOverTheLongestLengthsSplitsAnyWay() {
        // no file that long exists: combining over half a length twice must equal combining over all of it, up to
        // the largest long (each bit of the length uses its own precomputed power of x)
        final int crc = 0x1234_5678;
        for (int bit = 40; bit < 63; bit++) {
            final long half = 1L << (bit - 1);
            assertEquals(Crc32c.combine(Crc32c.combine(crc, 0, half), 0, half), Crc32c.combine(crc, 0, 1L << bit), "2^" + bit);
        }
        assertEquals(Crc32c.combine(Crc32c.combine(crc, 0, 1L << 62), 0, Long.MAX_VALUE - (1L << 62)),
            Crc32c.combine(crc, 0, Long.MAX_VALUE));
    }
}
