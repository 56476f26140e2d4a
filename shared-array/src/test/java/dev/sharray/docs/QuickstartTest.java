package dev.sharray.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sharray.SharedArrays;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import org.junit.jupiter.api.Test;

/** The README quickstart runs, prints what its comments say, leaks nothing, and is shown verbatim. */
class QuickstartTest {
    @Test
    void quickstartRunsAndTheReadmeShowsItVerbatim() throws Exception {
        long leaksBefore = SharedArrays.leaksReported();
        PrintStream stdout = System.out;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            QuickstartExample.main(new String[0]);
        } finally {
            System.setOut(stdout);
        }
        assertEquals("42.0\n42.0\n84.0\n", captured.toString(StandardCharsets.UTF_8));

        String source = DocFiles.source("shared-array/src/test/java/dev/sharray/docs/QuickstartExample.java");
        String body = source.substring(source.indexOf("// quickstart-begin\n") + "// quickstart-begin\n".length(),
            source.indexOf("        // quickstart-end"));
        StringBuilder shown = new StringBuilder();
        for (String line : body.split("\n", -1)) {
            shown.append(line.length() >= 8 ? line.substring(8) : line.strip()).append('\n');
        }
        String readme = Files.readString(DocFiles.root().resolve("README.md"));
        assertTrue(readme.contains(shown.toString().strip()), "README must show the quickstart verbatim:\n" + shown);
        assertEquals(leaksBefore, SharedArrays.leaksReported());
    }
}
