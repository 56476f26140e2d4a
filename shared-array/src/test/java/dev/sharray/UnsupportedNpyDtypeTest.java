package dev.sharray;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * A NumPy file of a dtype sharray lacks is refused with the conversion that makes it open, where one keeps every
 * value: the test runs the suggested conversion in NumPy and opens the result. Before, the message listed the
 * supported types and stopped there, and for a big-endian file it said only that sharray arrays are little-endian.
 */
class UnsupportedNpyDtypeTest {
    @Test
    void theRefusalNamesALosslessConversionAndThatConversionOpens(@TempDir Path dir) throws Exception {
        final String[][] cases = {
            {"np.array([True, False, True])", "|b1", "u1",
                "unsupported NumPy dtype '|b1' (supported: i1, u1, i2, i4, i8, f4, f8): convert it in NumPy, e.g."
                    + " np.save(path, a.astype('u1'))"},
            {"np.array([1, 65535, 3], dtype='<u2')", "<u2", "<i4",
                "unsupported NumPy dtype '<u2' (supported: i1, u1, i2, i4, i8, f4, f8): convert it in NumPy, e.g."
                    + " np.save(path, a.astype('<i4'))"},
            {"np.array([1.5, -2.0, 3.0], dtype='>f8')", ">f8", "<f8",
                "big-endian dtype '>f8' is not supported; sharray arrays are little-endian: convert it in NumPy, e.g."
                    + " np.save(path, a.astype('<f8'))"},
            {"np.array([1, 2, 3], dtype='>u2')", ">u2", "<i4",
                "big-endian dtype '>u2' is not supported; sharray arrays are little-endian: convert it in NumPy, e.g."
                    + " np.save(path, a.astype('<i4'))"},
        };
        for (String[] c : cases) {
            final Path file = dir.resolve("a.npy");
            Python.run("import sys, numpy as np\nnp.save(sys.argv[1], " + c[0] + ")", file.toString());
            final InvalidDescriptorException e = assertThrows(InvalidDescriptorException.class,
                () -> SharedArray.openNpy(file), c[1]);
            assertEquals("descr", e.field());
            assertEquals(file.toRealPath() + ": descr: " + c[3], e.getMessage());
            // as the message says
            Python.run("import sys, numpy as np\na = np.load(sys.argv[1])\nnp.save(sys.argv[1], a.astype(sys.argv[2]))",
                file.toString(), c[2]);
            final String expected = Python.run("import sys, numpy as np\nprint(np.load(sys.argv[1]).astype(float).tolist())",
                file.toString());
            try (SharedArray a = SharedArray.openNpy(file)) {
                final StringBuilder seen = new StringBuilder("[");
                for (long i = 0; i < a.size(); i++) {
                    seen.append(i == 0 ? "" : ", ").append(a.getDouble(i));
                }
                assertEquals(expected, seen.append(']').toString(), c[1]);
            }
        }
        // no lossless conversion: none suggested
        final Path complex = dir.resolve("c.npy");
        Python.run("import sys, numpy as np\nnp.save(sys.argv[1], np.zeros(2, dtype='<c16'))", complex.toString());
        assertEquals(complex.toRealPath() + ": descr: unsupported NumPy dtype '<c16' (supported: i1, u1, i2, i4, i8, f4, f8)",
            assertThrows(InvalidDescriptorException.class, () -> SharedArray.openNpy(complex)).getMessage());
    }
}
