package dev.sharray.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sharray.DType;
import dev.sharray.SharedArray;
import dev.sharray.SharedArrays;
import dev.sharray.codec.ErasureCodec;
import dev.sharray.codec.Matrix;
import dev.sharray.codec.SharedStripes;
import dev.sharray.pool.ProcessPool;
import java.nio.file.Files;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Runs the "In place from worker JVMs" snippet of docs/codec.md (a pool encoding SharedArray stripes in place) and
 * checks that the page shows it verbatim. It lives here because only the CLI module depends on both the codec and
 * the pool.
 */
class CodecPoolSnippetTest {
    private static final String SOURCE = "cli/src/test/java/dev/sharray/docs/CodecPoolSnippetTest.java";

    /** The stripes the snippet created, retained by {@link #writeDataRows} so the test can check them afterwards. */
    private SharedArray written;

    @Test
    void snippetEncodesEveryStripeInPlaceAndCodecMdShowsIt() throws Exception {
        long count = 16;
        int shardLength = 64 << 10;
        snippet(count, shardLength);
        try (SharedArray stripes = written) {
            ErasureCodec codec = SharedStripes.codec(10, 4, Matrix.VANDERMONDE);
            for (long s = 0; s < count; s++) {
                try (SharedArray stripe = stripes.select(0, s)) {
                    assertTrue(codec.verify(stripe), "stripe " + s + " was encoded in place by a worker");
                    assertFalse(stripe.getByte(10, 0) == 0 && stripe.getByte(13, shardLength - 1) == 0
                        && stripe.getByte(11, 7) == 0, "parity of random data is not all zero");
                }
            }
            assertEquals(1, SharedArrays.totalReferences(stripes), "the workers released their views");
        }

        String source = DocFiles.source(SOURCE);
        String begin = "// snippet-begin\n";
        String body = source.substring(source.indexOf(begin) + begin.length(), source.lastIndexOf("        // snippet-end"));
        StringBuilder shown = new StringBuilder();
        for (String line : body.split("\n", -1)) {
            shown.append(line.length() >= 8 ? line.substring(8) : line.strip()).append('\n');
        }
        String page = Files.readString(DocFiles.root().resolve("docs/codec.md"));
        assertTrue(page.contains("```java\n" + shown.toString().strip() + "\n```"),
            "docs/codec.md must show the snippet verbatim:\n" + shown);
    }

    private void snippet(long count, int shardLength) {
        // snippet-begin
        try (SharedArray stripes = SharedArray.create(DType.UINT8, count, 10 + 4, shardLength);
             ProcessPool pool = ProcessPool.create(2)) {
            writeDataRows(stripes);                                 // rows 0..9 of every stripe: your data
            List<Long> coded = pool.mapChunks(stripes, 4, chunk -> {
                ErasureCodec codec = SharedStripes.codec(10, 4, Matrix.VANDERMONDE);
                for (long s = 0; s < chunk.shape()[0]; s++) {
                    try (SharedArray stripe = chunk.select(0, s)) {   // shape (k + m, shardLength)
                        codec.encode(stripe);
                    }
                }
                return chunk.shape()[0];
            });
        }
        // snippet-end
    }

    private void writeDataRows(SharedArray stripes) {
        byte[] bytes = new byte[Math.toIntExact(stripes.size())];
        new Random(42).nextBytes(bytes); // the parity rows too: encode must overwrite them
        stripes.copyFrom(bytes);
        written = stripes.retain();
    }
}
