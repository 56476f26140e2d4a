package dev.sharray;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * A bad shape given to create, zeros or of is the caller's bad argument: a plain {@link IllegalArgumentException}
 * with the shape check's specific text. Before, it was an {@link InvalidDescriptorException}, as if a descriptor or
 * a {@code .npy} header were malformed, though neither is involved.
 */
class BadShapeIsAnArgumentErrorTest {
    @Test
    void negativeTooManyAndOverflowingShapesAreArgumentErrors() throws Exception {
        final Path folder = SharedArrays.processFolder();
        final long before = countFiles(folder);
        final long[] tooMany = new long[Descriptor.MAX_NDIM + 1];
        java.util.Arrays.fill(tooMany, 1);
        final Object[][] cases = {
            {"shape: dimension 0 is negative: (-1,)", (Executable) () -> SharedArray.create(DType.FLOAT64, -1)},
            {"shape: dimension 1 is negative: (3, -2)",
                (Executable) () -> SharedArray.builder(DType.INT32, 3, -2).create()},
            {"ndim: 33 exceeds 32", (Executable) () -> SharedArray.create(DType.UINT8, tooMany)},
            {"shape: (1099511627776, 1099511627776) of FLOAT64 overflows 2^63 bytes",
                (Executable) () -> SharedArray.create(DType.FLOAT64, 1L << 40, 1L << 40)},
            {"shape: dimension 0 is negative: (-1,)", (Executable) () -> HeapArray.zeros(DType.FLOAT64, -1)},
            {"shape: (0, 2305843009213693952) of FLOAT64 overflows 2^63 bytes",
                (Executable) () -> HeapArray.zeros(DType.FLOAT64, 0, 1L << 61)},
            {"shape: dimension 0 is negative: (-3, -1)", (Executable) () -> HeapArray.of(new double[3], -3, -1)},
            {"ndim: 33 exceeds 32", (Executable) () -> HeapArray.of(new int[1], tooMany)},
        };
        for (Object[] c : cases) {
            final IllegalArgumentException e = assertThrows(IllegalArgumentException.class, (Executable) c[1]);
            assertEquals(IllegalArgumentException.class, e.getClass(), e.toString());
            assertEquals(c[0], e.getMessage());
        }
        assertEquals(before, countFiles(folder));
    }

    private static long countFiles(Path folder) throws Exception {
        if (!Files.isDirectory(folder)) {
            return 0;
        }
        try (Stream<Path> s = Files.list(folder)) {
            return s.count();
        }
    }
}
