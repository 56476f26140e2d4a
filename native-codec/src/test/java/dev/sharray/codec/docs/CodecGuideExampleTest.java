package dev.sharray.codec.docs;

import dev.sharray.docs.DocFiles;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Runs the complete example of docs/codec.md and checks that the guide shows it verbatim. */
class CodecGuideExampleTest {
    private static final String EXAMPLE = "native-codec/src/test/java/dev/sharray/codec/docs/CodecGuideExample.java";

    @Test
    void exampleRuns() throws Exception {
        CodecGuideExample.Outcome o = CodecGuideExample.run();
        assertTrue(o.codec().startsWith("ErasureCodec[RS(4,2) VANDERMONDE, NATIVE/"), o.codec());
        assertArrayEquals(new byte[][] {{12, 13}, {10, 11}, {14, 15}, {90, 91}, {94, 95}}, o.knownAnswerParity());
        assertTrue(o.javaBackendIdentical(), "JAVA and AUTO backends write the same parity");
        assertTrue(o.verified(), "verify accepts freshly encoded parity");
        assertTrue(o.rebuilt(), "reconstruct restores a lost data and a lost parity shard");
        assertTrue(o.updateEqualsReencode(), "update equals a full re-encode");
        assertTrue(o.tooFewRefused(), "3 of 6 shards is too few for RS(4,2)");
        assertTrue(o.buffersRebuilt(), "direct buffers: encode and reconstructData");
        assertEquals("NATIVE", o.workerBackend());
        assertTrue(o.workerParityVerified(), "the worker JVM's in-place parity verifies in the parent");
        assertTrue(o.stripeRebuilt(), "reconstruct in place on the SharedArray stripe");
    }

    @Test
    void guideShowsTheTestedSource() throws Exception {
        String shown = DocFiles.block("codec.md", "<!-- example: " + EXAMPLE + " -->", "java");
        assertEquals(DocFiles.source(EXAMPLE), shown, "docs/codec.md must show CodecGuideExample.java verbatim "
            + "(copy the file into the guide)");
    }
}
