package dev.sharray.codec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class UpdateVerifyTest {

    @ParameterizedTest
    @EnumSource(value = Backend.class, names = {"NATIVE", "ISAL"})
    void aCodecMakesUpdateTablesOnlyForTheDataShardsItUpdates(Backend backend) {
        int k = 128;
        int m = 128;
        long before = NativeMemoryTables.BYTES_NOT_FREED.get();
        ErasureCodec codec = ErasureCodec.builder(k, m).backend(backend).build();
        long created = NativeMemoryTables.BYTES_NOT_FREED.get() - before;
        byte[][] s = Codecs.randomStripe(new Random(7), k, m, 64);
        codec.encode(s);
        before = NativeMemoryTables.BYTES_NOT_FREED.get();
        byte[] newData = new byte[64];
        codec.update(s, 3, newData);
        long oneColumn = NativeMemoryTables.BYTES_NOT_FREED.get() - before;
        assertTrue(oneColumn > 0, codec + ": the first update of a shard makes its tables");
        // before: every codec made them for all k data shards up front (~1.3 MB of RS(128,128)'s ~2.6 MB), and
        // also a one-column table per shard that nothing used
        assertTrue(created < k * oneColumn, codec + ": created with " + created + " table bytes, one shard's update tables "
            + oneColumn);
        codec.update(s, 3, newData);
        codec.update(s, 5, newData);
        assertEquals(before + 2 * oneColumn, NativeMemoryTables.BYTES_NOT_FREED.get(), codec + ": made once per updated shard");
        byte[][] expected = Codecs.copy(s);
        codec.encode(expected);
        for (int i = 0; i < k + m; i++) {
            assertArrayEquals(expected[i], s[i], codec + " shard " + i);
        }
    }

    @ParameterizedTest
    @EnumSource(Matrix.class)
    void updateEqualsReEncode(Matrix matrix) {
        Random rnd = new Random(11);
        int k = 10;
        int m = 4;
        for (ErasureCodec codec : Codecs.all(k, m, matrix)) {
            for (int len : new int[] {1, 65, 20000}) {
                byte[][] s = Codecs.randomStripe(rnd, k, m, len);
                codec.encode(s);
                for (int round = 0; round < 3; round++) {
                    int d = rnd.nextInt(k);
                    byte[] newData = new byte[len];
                    rnd.nextBytes(newData);
                    byte[][] expected = Codecs.copy(s);
                    expected[d] = newData.clone();
                    codec.encode(expected);

                    // Direct buffers holding the same stripe get the same update.
                    ByteBuffer[] b = new ByteBuffer[k + m];
                    for (int i = 0; i < k + m; i++) {
                        b[i] = ByteBuffer.allocateDirect(len).put(0, s[i]);
                    }
                    codec.update(s, d, newData);
                    codec.update(b, d, ByteBuffer.allocateDirect(len).put(0, newData));
                    for (int i = 0; i < k + m; i++) {
                        assertArrayEquals(expected[i], s[i], codec + " len " + len + " shard " + i);
                        byte[] got = new byte[len];
                        b[i].get(0, got);
                        assertArrayEquals(expected[i], got, codec + " buffers len " + len + " shard " + i);
                    }
                }
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Matrix.class)
    void verifyDetectsOneFlippedByteAnywhere(Matrix matrix) {
        Random rnd = new Random(13);
        int k = 6;
        int m = 3;
        for (ErasureCodec codec : Codecs.all(k, m, matrix)) {
            int len = 40000; // several verify chunks
            byte[][] s = Codecs.randomStripe(rnd, k, m, len);
            codec.encode(s);
            assertTrue(codec.verify(s), codec.toString());
            for (int shard : new int[] {0, 5, 6, 8}) {
                for (int pos : new int[] {0, 16383, 16384, len - 1}) {
                    s[shard][pos] ^= 0x10;
                    assertFalse(codec.verify(s), codec + " flip shard " + shard + " byte " + pos);
                    ByteBuffer[] b = new ByteBuffer[k + m];
                    for (int i = 0; i < k + m; i++) {
                        b[i] = ByteBuffer.allocateDirect(len).put(0, s[i]);
                    }
                    assertFalse(codec.verify(b), codec + " buffers flip shard " + shard + " byte " + pos);
                    s[shard][pos] ^= 0x10;
                }
            }
            assertTrue(codec.verify(s), codec.toString());
        }
    }
}
