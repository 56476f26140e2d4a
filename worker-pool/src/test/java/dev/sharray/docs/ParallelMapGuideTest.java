package dev.sharray.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * Runs the complete example of {@code docs/guide-parallel-map.md} and checks that the guide shows
 * {@link ParallelMapExample} verbatim (as {@code shared-array}'s {@code GuideExamplesTest} does for the
 * other two guides; this one lives here because the example needs the pool).
 */
class ParallelMapGuideTest {
    private static final String PAGE = "guide-parallel-map.md";
    private static final String SOURCE = "worker-pool/src/test/java/dev/sharray/docs/ParallelMapExample.java";

    @Test
    void guideShowsTheTestedSource() throws Exception {
        assertEquals(DocFiles.source(SOURCE), DocFiles.block(PAGE, "<!-- example: " + SOURCE + " -->", "java"),
            "docs/" + PAGE + " must show " + SOURCE + " verbatim (copy the file into the guide)");
    }

    @Test
    void exampleRunsAndPrintsWhatTheGuideSays() throws Exception {
        final PrintStream original = System.out;
        final ByteArrayOutputStream captured = new ByteArrayOutputStream();
        try (PrintStream out = new PrintStream(captured, true, StandardCharsets.UTF_8)) {
            System.setOut(out);
            ParallelMapExample.main(new String[0]);
        } finally {
            System.setOut(original);
        }
        final String printed = captured.toString(StandardCharsets.UTF_8);
        original.print(printed);
        assertEquals(String.join(System.lineSeparator(),
            "sum of squares = 2683731968.0; data[0, 3] is now 2.00",
            "max = 3.5",
            "weights sum = [1000000.0, 1000000.0]", ""), printed);
    }
}
