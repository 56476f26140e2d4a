package dev.sharray.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
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
        final Path root = root();
        final String text = Files.readString(root.resolve("docs").resolve(PAGE));
        final String marker = "<!-- example: " + SOURCE + " -->";
        final int m = text.indexOf(marker);
        if (m < 0) {
            throw new AssertionError("docs/" + PAGE + " has no marker " + marker);
        }
        final int start = text.indexOf("```java\n", m) + "```java\n".length();
        final int end = text.indexOf("\n```", start);
        assertEquals(Files.readString(root.resolve(SOURCE)), text.substring(start, end + 1),
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

    private static Path root() {
        final String configured = System.getProperty("sharray.root");
        final Path p = configured != null ? Path.of(configured) : Path.of("").toAbsolutePath();
        for (Path q = p.toAbsolutePath(); q != null; q = q.getParent()) {
            if (Files.isDirectory(q.resolve("docs")) && Files.exists(q.resolve("pom.xml"))
                && Files.isDirectory(q.resolve("worker-pool"))) {
                return q;
            }
        }
        throw new IllegalStateException("cannot find the repository root from " + p);
    }
}
