package dev.sharray.docs;

import static org.junit.jupiter.api.Assertions.assertTrue;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sharray.DType;
import dev.sharray.SharedArray;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Runs the Python reader of docs/descriptor-format.md against real views, both ways. */
class DescriptorFormatDocTest {
    private static final String PYTHON = "/usr/bin/python3";

    @Test
    void pythonSnippetOpensTransposedReversedView(@TempDir Path dir) throws Exception {
        assertTrue(numpy(), "needs numpy for /usr/bin/python3 (run-tests.sh installs python3-numpy)");
        String snippet = DocFiles.block("descriptor-format.md", "<!-- python-reader", "python");
        try (SharedArray a = SharedArray.create(DType.FLOAT64, 3, 4)) {
            double[] v = new double[12];
            Arrays.setAll(v, i -> i + 0.5);
            a.copyFrom(v);
            try (SharedArray reversed = a.slice(0, 2, -1, -1);
                 SharedArray view = reversed.transpose()) {      // shape (4, 3), strides (8, -32)
                Files.writeString(dir.resolve("reader.py"), snippet + "\n"
                    + "import sys\n"
                    + "v = open_descriptor(bytes.fromhex(sys.argv[1]))\n"
                    + "print(v.shape, v.dtype.str, v.ravel().tolist())\n"
                    + "v[1, 2] = -7.0\n");
                double[] flat = view.toDoubleArray();
                String out = run(dir, "reader.py", HexFormat.of().formatHex(view.descriptor().toBytes()));
                StringBuilder expected = new StringBuilder("(4, 3) <f8 [");
                for (int i = 0; i < flat.length; i++) {
                    expected.append(i == 0 ? "" : ", ").append(flat[i]);
                }
                assertEquals(expected + "]", out.trim());
                assertEquals(-7.0, view.getDouble(1, 2), "Python wrote through the same memory");
                assertEquals(-7.0, a.getDouble(0, 1));
            }
        }
    }

    private static boolean numpy() {
        try {
            Process p = new ProcessBuilder(PYTHON, "-c", "import numpy").start();
            return p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (Exception e) {
            return false;
        }
    }

    private static String run(Path dir, String script, String... args) throws Exception {
        String[] cmd = new String[args.length + 2];
        cmd[0] = PYTHON;
        cmd[1] = dir.resolve(script).toString();
        System.arraycopy(args, 0, cmd, 2, args.length);
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(true, p.waitFor(60, TimeUnit.SECONDS), "python timed out");
        assertEquals(0, p.exitValue(), out);
        return out;
    }
}
