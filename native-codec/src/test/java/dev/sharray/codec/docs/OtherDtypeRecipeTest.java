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

/** codec.md's recipe for coding a FLOAT64 array in place through direct buffers runs as the page shows it. */
class OtherDtypeRecipeTest {
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
