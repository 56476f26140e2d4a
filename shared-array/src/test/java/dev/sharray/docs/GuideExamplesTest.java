package dev.sharray.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Runs the complete examples of the guides and checks that the guides show them verbatim. */
class GuideExamplesTest {
    private static final String DIR = "shared-array/src/test/java/dev/sharray/docs/";

    @Test
    void zeroCopyHandoffExampleRuns() throws Exception {
        ZeroCopyHandoffExample.Outcome o = ZeroCopyHandoffExample.parent();
        assertEquals(o.expectedSum(), o.sumSeenByChild());
        assertTrue(o.childWritesVisible(), "the parent sees the child's in-place writes");
    }

    @Test
    void lifecycleExampleRuns() throws Exception {
        LifecycleExample.Outcome o = LifecycleExample.run();
        assertEquals(3, o.referencesWithTwoViews());
        assertEquals(5.0, o.seenThroughTranspose());
        assertEquals(10.0, o.heapResult());
        assertTrue(o.fileGoneAfterClose());
        assertTrue(o.afterRelease().contains("released"), o.afterRelease());
        assertTrue(o.heldByChildAfterParentReleased());
        assertTrue(o.goneAfterChildKilledAndReaped());
        assertEquals(1, o.leaksReported());
    }

    @Test
    void guidesShowTheTestedSources() throws Exception {
        for (String[] page : new String[][] {
            {"guide-zero-copy-handoff.md", "ZeroCopyHandoffExample.java"},
            {"guide-lifecycle.md", "LifecycleExample.java"}}) {
            String shown = DocFiles.block(page[0], "<!-- example: " + DIR + page[1] + " -->", "java");
            assertEquals(DocFiles.source(DIR + page[1]), shown, "docs/" + page[0] + " must show " + page[1]
                + " verbatim (copy the file into the guide)");
        }
        assertFalse(DocFiles.block("guide-parallel-map.md", "<!-- example:", "java").isBlank());
    }
}
