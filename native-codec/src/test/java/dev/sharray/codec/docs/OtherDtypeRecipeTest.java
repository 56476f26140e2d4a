package dev.sharray.codec.docs;

import com.sun.jna.Pointer;
import dev.sharray.DType;
import dev.sharray.SharedArray;
import dev.sharray.codec.ErasureCodec;
import dev.sharray.docs.DocFiles;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** codec.md's recipes for coding FLOAT64 data in place run as the page shows them. */
class OtherDtypeRecipeTest {
    private static final String SOURCE = "native-codec/src/test/java/dev/sharray/codec/docs/OtherDtypeRecipeTest.java";

    @Test
    void doublesInTheDataRowsOfAUint8StripeAreCodedThroughAFloat64ViewAsCodecMdShows() throws Exception {
        final int k = 4;
        final int n = 500;
        final double[] values = new double[k * n];
        final java.util.Random rnd = new java.util.Random(11);
        for (int i = 0; i < values.length; i++) {
            values[i] = Double.longBitsToDouble(rnd.nextLong()); // NaN payloads and -0.0 included
        }
        final double[] rebuilt = snippet(values, n);
        assertArrayEquals(Arrays.stream(values).mapToLong(Double::doubleToRawLongBits).toArray(),
            Arrays.stream(rebuilt).mapToLong(Double::doubleToRawLongBits).toArray(), "bit for bit");

        final String source = DocFiles.source(SOURCE);
        final String begin = "// snippet-begin\n";
        final String body = source.substring(source.indexOf(begin) + begin.length(),
            source.lastIndexOf("        // snippet-end"));
        final StringBuilder shown = new StringBuilder();
        for (String line : body.split("\n", -1)) {
            shown.append(line.length() >= 8 ? line.substring(8) : line.strip()).append('\n');
        }
        final String page = Files.readString(DocFiles.root().resolve("docs/codec.md"));
        assertTrue(page.contains("```java\n" + shown.toString().strip() + "\n```"),
            "docs/codec.md must show the snippet verbatim:\n" + shown);
    }

    /** codec.md's snippet: k * n doubles through a stripe of RS(4, 2); returns them after two rows were lost. */
    private static double[] snippet(double[] values, int n) {
        // snippet-begin
        try (SharedArray stripe = SharedArray.create(DType.UINT8, 4 + 2, 8L * n);  // RS(4,2), n doubles a shard
             SharedArray dataRows = stripe.slice(0, 0, 4, 1);                      // rows 0..3: the data shards
             SharedArray data = dataRows.viewAs(DType.FLOAT64);                    // the same bytes, shape (4, n)
             ErasureCodec codec = ErasureCodec.create(4, 2)) {
            data.copyFrom(values);                                                 // 4 * n doubles, row-major
            codec.encode(stripe);                                                  // parity rows 4 and 5, in place
            for (int lost : new int[] {1, 5}) {                                    // lose data shard 1 and parity 1
                try (SharedArray row = stripe.select(0, lost)) {
                    row.copyFrom(new byte[8 * n]);
                }
            }
            codec.reconstruct(stripe, new boolean[] {true, false, true, true, true, false});
            return data.toDoubleArray();                                           // the doubles, bit for bit
        }
        // snippet-end
    }

    @Test
    void aFloat64ArrayIsCodedInPlaceThroughBuffersOverItsMemory() throws Exception {
        final String page = Files.readString(DocFiles.root().resolve("docs/codec.md"));
        assertTrue(page.contains("`new com.sun.jna.Pointer(a.address()).getByteBuffer(i * shardLength, shardLength)`"),
            "codec.md shows the recipe this test runs");
        final int k = 4;
        final int m = 2;
        try (SharedArray a = SharedArray.create(DType.FLOAT64, 100, 40);
             ErasureCodec codec = ErasureCodec.create(k, m)) {
            final double[] values = new double[4000];
            for (int i = 0; i < values.length; i++) {
                values[i] = i * 0.5;
            }
            a.copyFrom(values);
            final long shardLength = a.byteSize() / k;                 // 32,000 bytes: a multiple of k here
            final ByteBuffer[] shards = new ByteBuffer[k + m];
            for (int i = 0; i < k; i++) {
                shards[i] = new Pointer(a.address()).getByteBuffer(i * shardLength, shardLength);
            }
            for (int j = 0; j < m; j++) {
                shards[k + j] = ByteBuffer.allocateDirect((int) shardLength);
            }
            codec.encode(shards);
            try (SharedArray lost = a.slice(0, 25, 50, 1)) {           // rows 25..49: exactly data shard 1
                lost.copyFrom(new double[1000]);
            }
            final boolean[] present = {true, false, true, true, true, true};
            codec.reconstruct(shards, present);                         // rewrites shard 1 in the array's memory
            assertArrayEquals(values, a.toDoubleArray());
            assertTrue(codec.verify(shards));
            assertTrue(Arrays.equals(values, a.toDoubleArray()));
        }
    }
}
