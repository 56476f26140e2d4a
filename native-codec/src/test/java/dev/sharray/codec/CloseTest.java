package dev.sharray.codec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sharray.DType;
import dev.sharray.SharedArray;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@link ErasureCodec#close()}: the native tables (encode, update, cached decode plans) are freed by the caller, not
 * left to the garbage collector's cleaner thread; never under a running call; every later call is refused.
 */
class CloseTest {
    private static final int K = 6;
    private static final int M = 3;
    private static final int LEN = 40_000;

    /** A codec that has encoded, updated and reconstructed (cached plan) holds tables; close gives all of them back. */
    @ParameterizedTest
    @EnumSource(value = Backend.class, names = {"NATIVE", "ISAL"})
    void closeFreesEveryNativeTableAtOnce(Backend backend) {
        final long before = NativeMemoryTables.BYTES_NOT_FREED.get();
        ErasureCodec codec = ErasureCodec.builder(K, M).backend(backend).build();
        byte[][] s = Codecs.randomStripe(new Random(1), K, M, LEN);
        codec.encode(s);
        codec.update(s, 2, new byte[LEN]);
        boolean[] present = {false, true, true, true, false, true, true, true, true};
        codec.reconstruct(s, present);
        assertTrue(NativeMemoryTables.BYTES_NOT_FREED.get() > before, "the codec holds native tables");
        codec.close();
        assertEquals(before, NativeMemoryTables.BYTES_NOT_FREED.get(), "close freed every table it held");
        codec.close(); // idempotent
        assertEquals(before, NativeMemoryTables.BYTES_NOT_FREED.get());
    }

    /**
     * Another thread closes the codec while a call is between its checks and its kernels: the call still codes
     * correctly with its tables, which are freed when it returns, and the next call is refused.
     */
    @ParameterizedTest
    @EnumSource(value = Backend.class, names = {"NATIVE", "ISAL", "JAVA"})
    void aCloseDuringACallFreesTheTablesOnlyWhenTheCallReturns(Backend backend) throws Exception {
        final long before = NativeMemoryTables.BYTES_NOT_FREED.get();
        ErasureCodec codec = ErasureCodec.builder(K, M).backend(backend).build();
        byte[][] heap = Codecs.randomStripe(new Random(2), K, M, LEN);
        codec.encode(heap);
        ByteBuffer[] shards = new ByteBuffer[K + M];
        for (int i = 0; i < K + M; i++) {
            shards[i] = ByteBuffer.allocateDirect(LEN).put(heap[i]).flip();
        }
        final List<Long> duringCall = new ArrayList<>();
        codec.afterBuffersChecked(() -> {
            duringCall.add(NativeMemoryTables.BYTES_NOT_FREED.get()); // the call's plan is made by now
            Thread closer = new Thread(codec::close);
            closer.start();
            try {
                closer.join();
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
            duringCall.add(NativeMemoryTables.BYTES_NOT_FREED.get());
        });
        boolean[] present = {false, true, true, false, true, true, true, true, false};
        for (int i = 0; i < K + M; i++) {
            if (!present[i]) {
                shards[i].duplicate().put(new byte[LEN]);
            }
        }
        codec.reconstruct(shards, present);
        assertEquals(2, duringCall.size());
        assertEquals(duringCall.get(0), duringCall.get(1), "closed during the call: nothing is freed under it");
        for (int i = 0; i < K + M; i++) {
            byte[] got = new byte[LEN];
            shards[i].duplicate().get(got);
            assertArrayEquals(heap[i], got, "shard " + i + " rebuilt with the tables the call started with");
        }
        assertEquals(before, NativeMemoryTables.BYTES_NOT_FREED.get(), "the call's return freed the tables");
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> codec.encode(heap));
        assertTrue(e.getMessage().startsWith("this codec is closed: ErasureCodec[RS(6,3)"), e.getMessage());
    }

    /** Every operation on every stripe form refuses a closed codec before touching anything. */
    @Test
    void everyOperationRefusesAClosedCodec() {
        ErasureCodec codec = ErasureCodec.builder(K, M).backend(Backend.NATIVE).build();
        codec.close();
        byte[][] heap = Codecs.randomStripe(new Random(3), K, M, 10);
        ByteBuffer[] buffers = new ByteBuffer[K + M];
        for (int i = 0; i < K + M; i++) {
            buffers[i] = ByteBuffer.allocateDirect(10);
        }
        boolean[] present = new boolean[K + M];
        java.util.Arrays.fill(present, true);
        try (SharedArray stripe = SharedArray.create(DType.UINT8, K + M, 10)) {
            List<Consumer<ErasureCodec>> calls = List.of(c -> c.encode(heap), c -> c.encode(heap, 0, 5),
                c -> c.verify(heap), c -> c.reconstruct(heap, present), c -> c.reconstructData(heap, present),
                c -> c.update(heap, 0, new byte[10]), c -> c.encode(buffers), c -> c.verify(buffers),
                c -> c.reconstruct(buffers, present), c -> c.reconstructData(buffers, present),
                c -> c.update(buffers, 0, ByteBuffer.allocateDirect(10)), c -> c.encode(stripe), c -> c.verify(stripe),
                c -> c.reconstruct(stripe, present), c -> c.reconstructData(stripe, present),
                c -> c.update(stripe, 0, new byte[10]));
            for (Consumer<ErasureCodec> call : calls) {
                assertThrows(IllegalStateException.class, () -> call.accept(codec));
            }
        }
        assertEquals(K, codec.dataShards(), "accessors still answer");
    }

    /** The codecs SharedStripes shares across a worker's tasks stay usable when one task closes its reference. */
    @Test
    void aSharedStripesCodecIsLeftOpen() {
        ErasureCodec shared = SharedStripes.codec(K, M, Matrix.VANDERMONDE);
        shared.close();
        byte[][] s = Codecs.randomStripe(new Random(4), K, M, 100);
        shared.encode(s);
        assertTrue(shared.verify(s));
    }
}
