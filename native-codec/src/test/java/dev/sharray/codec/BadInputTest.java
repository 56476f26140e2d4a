package dev.sharray.codec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sharray.DType;
import dev.sharray.SharedArray;
import java.nio.ByteBuffer;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/** Every bad argument is rejected in Java, with its own exception type and message, before any kernel. */
class BadInputTest {
    private final ErasureCodec codec = ErasureCodec.create(4, 2);

    private static <T extends Throwable> void fails(Class<T> type, String message, Executable call) {
        T e = assertThrows(type, call);
        assertEquals(message, e.getMessage());
    }

    private static byte[][] stripe(int len) {
        return new byte[6][len];
    }

    private static ByteBuffer[] buffers(int len) {
        ByteBuffer[] b = new ByteBuffer[6];
        for (int i = 0; i < 6; i++) {
            b[i] = ByteBuffer.allocateDirect(len);
        }
        return b;
    }

    @Test
    void shardCounts() {
        fails(IllegalArgumentException.class, "need dataShards >= 1, parityShards >= 1 and dataShards + parityShards"
            + " <= 256, got 0 + 2", () -> ErasureCodec.create(0, 2));
        fails(IllegalArgumentException.class, "need dataShards >= 1, parityShards >= 1 and dataShards + parityShards"
            + " <= 256, got 4 + 0", () -> ErasureCodec.create(4, 0));
        fails(IllegalArgumentException.class, "need dataShards >= 1, parityShards >= 1 and dataShards + parityShards"
            + " <= 256, got 200 + 57", () -> ErasureCodec.create(200, 57));
        // k + m overflows int: the sum is negative, yet the stripe is far wider than 256
        fails(IllegalArgumentException.class, "need dataShards >= 1, parityShards >= 1 and dataShards + parityShards"
            + " <= 256, got 2147483647 + 1", () -> ErasureCodec.create(Integer.MAX_VALUE, 1));
        fails(IllegalArgumentException.class, "need dataShards >= 1, parityShards >= 1 and dataShards + parityShards"
            + " <= 256, got 1073741824 + 1073741824", () -> ErasureCodec.builder(1 << 30, 1 << 30));
        fails(IllegalArgumentException.class, "need dataShards >= 1, parityShards >= 1 and dataShards + parityShards"
            + " <= 256, got 10 + 2147483647", () -> ErasureCodec.create(10, Integer.MAX_VALUE));
        fails(IllegalArgumentException.class, "expected 6 shards (4 data + 2 parity), got 5",
            () -> codec.encode(new byte[5][10]));
        fails(IllegalArgumentException.class, "expected 6 shards (4 data + 2 parity), got 7",
            () -> codec.encode(new ByteBuffer[7]));
    }

    @Test
    void nullsAndLengths() {
        fails(NullPointerException.class, "shards must not be null", () -> codec.encode((byte[][]) null));
        byte[][] s = stripe(10);
        s[3] = null;
        fails(NullPointerException.class, "shard 3 is null", () -> codec.encode(s));
        byte[][] uneven = stripe(10);
        uneven[5] = new byte[11];
        fails(IllegalArgumentException.class, "shard 5 has length 11, expected 10", () -> codec.encode(uneven));
        fails(IllegalArgumentException.class, "shard 0 is empty; shards must hold at least 1 byte",
            () -> codec.encode(stripe(0)));
        fails(IndexOutOfBoundsException.class, "offset 5 and length 6 out of range for shards of length 10",
            () -> codec.encode(stripe(10), 5, 6));
        fails(IndexOutOfBoundsException.class, "offset -1 and length 2 out of range for shards of length 10",
            () -> codec.encode(stripe(10), -1, 2));
        fails(IllegalArgumentException.class, "shard 2 has length 9, expected 10", () -> {
            byte[][] v = stripe(10);
            v[2] = new byte[9];
            codec.verify(v);
        });
    }

    @Test
    void buffers() {
        ByteBuffer[] heap = buffers(10);
        heap[1] = ByteBuffer.allocate(10);
        fails(IllegalArgumentException.class, "shard 1 is not a direct ByteBuffer", () -> codec.encode(heap));
        ByteBuffer[] ro = buffers(10);
        ro[4] = ro[4].asReadOnlyBuffer();
        fails(IllegalArgumentException.class, "shard 4 is read-only but must be written", () -> codec.encode(ro));
        ByteBuffer[] ro2 = buffers(10);
        ro2[0] = ro2[0].asReadOnlyBuffer();
        codec.encode(ro2); // read-only data shards are fine: they are only read
        ByteBuffer[] short1 = buffers(10);
        short1[2].position(3);
        fails(IllegalArgumentException.class, "shard 2 has 7 bytes remaining, expected 10", () -> codec.encode(short1));
        ByteBuffer[] nul = buffers(10);
        nul[5] = null;
        fails(NullPointerException.class, "shard 5 is null", () -> codec.verify(nul));
        fails(IllegalArgumentException.class, "newData is not a direct ByteBuffer",
            () -> codec.update(buffers(10), 1, ByteBuffer.allocate(10)));
        fails(IllegalArgumentException.class, "newData has length 9, expected 10",
            () -> codec.update(buffers(10), 1, ByteBuffer.allocateDirect(9)));
    }

    @Test
    void presentFlags() {
        fails(NullPointerException.class, "present must not be null", () -> codec.reconstruct(stripe(10), null));
        fails(IllegalArgumentException.class, "present has length 5, expected 6",
            () -> codec.reconstruct(stripe(10), new boolean[5]));
        TooFewShardsException e = assertThrows(TooFewShardsException.class,
            () -> codec.reconstruct(stripe(10), new boolean[] {true, false, true, false, true, false}));
        assertEquals("too few shards to reconstruct: 3 present, 4 required", e.getMessage());
        assertEquals(3, e.present());
        assertEquals(4, e.required());
        fails(TooFewShardsException.class, "too few shards to reconstruct: 0 present, 4 required",
            () -> codec.reconstructData(buffers(10), new boolean[6]));
        byte[][] s = stripe(10);
        s[0] = null;
        fails(NullPointerException.class, "shard 0 is marked present but is null",
            () -> codec.reconstruct(s, new boolean[] {true, true, true, true, true, false}));
        byte[][] wrong = stripe(10);
        wrong[5] = new byte[3];
        fails(IllegalArgumentException.class, "missing shard 5 has length 3, expected 10 (or null to allocate it)",
            () -> codec.reconstruct(wrong, new boolean[] {true, true, true, true, true, false}));
        ByteBuffer[] ro = buffers(10);
        ro[5] = ro[5].asReadOnlyBuffer();
        fails(IllegalArgumentException.class, "shard 5 is read-only but must be written",
            () -> codec.reconstruct(ro, new boolean[] {true, true, true, true, true, false}));
    }

    @Test
    void update() {
        byte[][] s = stripe(10);
        fails(IndexOutOfBoundsException.class, "dataIndex 4 out of range [0, 4)", () -> codec.update(s, 4, new byte[10]));
        fails(IndexOutOfBoundsException.class, "dataIndex -1 out of range [0, 4)", () -> codec.update(s, -1, new byte[10]));
        fails(NullPointerException.class, "newData must not be null", () -> codec.update(s, 0, null));
        fails(IllegalArgumentException.class, "newData has length 11, expected 10", () -> codec.update(s, 0, new byte[11]));
        fails(IllegalArgumentException.class, "newData must not be the shard array it replaces (the old contents are"
            + " needed to patch the parity)", () -> codec.update(s, 2, s[2]));
    }

    @Test
    void sharedArrays() {
        fails(NullPointerException.class, "stripe must not be null", () -> codec.encode((SharedArray) null));
        try (SharedArray wrongType = SharedArray.create(DType.INT8, 6, 10)) {
            fails(IllegalArgumentException.class, "stripe dtype is INT8, expected UINT8", () -> codec.encode(wrongType));
        }
        try (SharedArray rows = SharedArray.create(DType.UINT8, 5, 10)) {
            fails(IllegalArgumentException.class, "stripe shape is [5, 10], expected [6, shardLength >= 1] (4 data + 2"
                + " parity rows)", () -> codec.verify(rows));
        }
        try (SharedArray flat = SharedArray.create(DType.UINT8, 60)) {
            fails(IllegalArgumentException.class, "stripe shape is [60], expected [6, shardLength >= 1] (4 data + 2"
                + " parity rows)", () -> codec.encode(flat));
        }
        try (SharedArray t = SharedArray.create(DType.UINT8, 10, 6); SharedArray transposed = t.transpose()) {
            fails(IllegalArgumentException.class, "stripe must be contiguous (row-major), but has strides [1, 6]",
                () -> codec.encode(transposed));
        }
        SharedArray released = SharedArray.create(DType.UINT8, 6, 10);
        released.release();
        fails(IllegalStateException.class, "stripe has been released", () -> codec.encode(released));
        try (SharedArray ok = SharedArray.create(DType.UINT8, 6, 10)) {
            fails(TooFewShardsException.class, "too few shards to reconstruct: 3 present, 4 required",
                () -> codec.reconstruct(ok, new boolean[] {true, true, true, false, false, false}));
            fails(IllegalArgumentException.class, "newData has length 9, expected 10", () -> codec.update(ok, 0, new byte[9]));
            fails(IndexOutOfBoundsException.class, "dataIndex 7 out of range [0, 4)", () -> codec.update(ok, 7, new byte[10]));
        }
    }

    @Test
    void builderAndBackends() {
        fails(IllegalArgumentException.class, "simdLevel applies to the NATIVE backend only, not JAVA",
            () -> ErasureCodec.builder(4, 2).backend(Backend.JAVA).simdLevel(SimdLevel.AVX2).build());
        fails(IllegalArgumentException.class, "SIMD level VECTOR_API cannot be requested",
            () -> ErasureCodec.builder(4, 2).simdLevel(SimdLevel.VECTOR_API));
        fails(IllegalArgumentException.class, "SIMD level JAVA_SCALAR cannot be requested",
            () -> ErasureCodec.builder(4, 2).simdLevel(SimdLevel.JAVA_SCALAR));
        fails(NullPointerException.class, "matrix must not be null", () -> ErasureCodec.builder(4, 2).matrix(null));
        fails(NullPointerException.class, "backend must not be null", () -> ErasureCodec.builder(4, 2).backend(null));
    }

    @Test
    void shardsThatAreWrittenMustNotAliasOrOverlapOthers() {
        byte[][] heap = stripe(16);
        heap[0][3] = 7;
        heap[4] = heap[0]; // parity 4 is data 0: encoding would overwrite a data shard
        fails(IllegalArgumentException.class,
            "shard 4 is the same array as shard 0; shards that are written must not be another shard",
            () -> codec.encode(heap));
        assertEquals(7, heap[0][3], "nothing was written");
        byte[][] survivors = stripe(16);
        survivors[5] = survivors[1];
        boolean[] present = {true, true, true, true, true, false};
        fails(IllegalArgumentException.class,
            "shard 5 is the same array as shard 1; shards that are written must not be another shard",
            () -> codec.reconstruct(survivors, present));
        byte[][] s = stripe(16);
        fails(IllegalArgumentException.class, "newData must not be parity shard 5 (it is patched)",
            () -> codec.update(s, 0, s[5]));

        ByteBuffer whole = ByteBuffer.allocateDirect(64);
        ByteBuffer[] b = buffers(16);
        b[1] = whole.slice(0, 16);
        b[4] = whole.slice(8, 16); // parity 4 overlaps data 1 by 8 bytes
        fails(IllegalArgumentException.class,
            "shard 4 overlaps shard 1 in memory; shards that are written must not overlap any other",
            () -> codec.encode(b));
        for (int at : new int[] {1, 31}) { // parity 4 overlaps data 1 ([16, 32)) by one byte, at either end
            ByteBuffer[] edge = buffers(16);
            edge[1] = whole.slice(16, 16);
            edge[4] = whole.slice(at, 16);
            fails(IllegalArgumentException.class,
                "shard 4 overlaps shard 1 in memory; shards that are written must not overlap any other",
                () -> codec.encode(edge));
        }
        ByteBuffer[] adjacent = buffers(16);
        adjacent[1] = whole.slice(0, 16);
        adjacent[4] = whole.slice(16, 16); // touching, not overlapping: accepted
        codec.encode(adjacent);
        ByteBuffer[] ok = buffers(16);
        fails(IllegalArgumentException.class,
            "newData overlaps shard 5 in memory; shards that are written must not overlap any other",
            () -> codec.update(ok, 0, ok[5].duplicate()));
        codec.verify(b); // reading overlapping shards is harmless: verify writes nothing and accepts them
    }

    @Test
    void directBufferAddressesNeedNoAllocation() {
        assertEquals(true, Buffers.allocationFree(), "the JDK accessor is reachable with the project's flags");
    }

    @Test
    void aStripeReleasedByAnotherThreadDuringCallsNeverCrashes() throws Exception {
        ErasureCodec rs = ErasureCodec.create(10, 4);
        for (int round = 0; round < 20; round++) {
            SharedArray owner = SharedArray.create(DType.UINT8, 14, 1 << 20);
            SharedArray view = owner.slice(0, 0, 14, 1);
            owner.release(); // the view is the last handle: releasing it unmaps the stripe
            Thread coder = new Thread(() -> {
                try {
                    while (true) {
                        rs.encode(view);
                    }
                } catch (IllegalStateException released) {
                    // the expected end: the stripe was released between two calls
                }
            });
            coder.start();
            Thread.sleep(round % 4);
            view.release();
            coder.join(30_000);
            assertEquals(false, coder.isAlive());
        }
    }
    /**
     * Another thread moving a shard's position between the checks and the kernels must not move what the
     * kernels read or write: they code the bytes the checks saw. Here each shard holds two halves and the hook
     * moves every position to the second half; before, encode coded (and wrote) the second halves, and with a
     * buffer of exactly the shard length it would have read and written past its end.
     */
    @Test
    void aPositionMovedDuringACallDoesNotMoveWhatTheKernelsTouch() {
        final int len = 4096;
        for (ErasureCodec rs : Codecs.all(4, 2, Matrix.VANDERMONDE)) {
            byte[][] expected = Codecs.randomStripe(new Random(5), 4, 2, len);
            ErasureCodec.create(4, 2).encode(expected);
            ByteBuffer[] shards = new ByteBuffer[6];
            for (int i = 0; i < 6; i++) {
                shards[i] = ByteBuffer.allocateDirect(2 * len);
                shards[i].put(0, i < 4 ? expected[i] : new byte[len]).put(len, new byte[len]).limit(len);
            }
            rs.afterBuffersChecked(() -> {
                for (ByteBuffer b : shards) {
                    b.limit(2 * len).position(len);
                }
            });
            rs.encode(shards);
            for (int p = 4; p < 6; p++) {
                byte[] first = new byte[len];
                shards[p].get(0, first);
                assertArrayEquals(expected[p], first, rs.backend() + ": parity of the checked halves");
                shards[p].clear().limit(len);
            }
            for (ByteBuffer b : shards) {
                b.clear().limit(len);
            }
            assertTrue(rs.verify(shards), rs.backend() + ": verify reads the checked halves");
            boolean[] present = {false, true, true, true, true, false};
            shards[0].put(0, new byte[len]);
            shards[5].put(0, new byte[len]);
            for (ByteBuffer b : shards) {
                b.clear().limit(len);
            }
            rs.reconstruct(shards, present);
            for (int i : new int[] {0, 5}) {
                byte[] first = new byte[len];
                shards[i].get(0, first);
                assertArrayEquals(expected[i], first, rs.backend() + ": rebuilt shard " + i);
            }
            byte[] newData = new byte[len];
            new Random(6).nextBytes(newData);
            ByteBuffer fresh = ByteBuffer.allocateDirect(2 * len).put(0, newData).limit(len);
            for (ByteBuffer b : shards) {
                b.clear().limit(len);
            }
            rs.afterBuffersChecked(() -> {
                for (ByteBuffer b : shards) {
                    b.limit(2 * len).position(len);
                }
                fresh.limit(2 * len).position(len);
            });
            rs.update(shards, 2, fresh);
            expected[2] = newData;
            ErasureCodec.create(4, 2).encode(expected);
            for (int i = 0; i < 6; i++) {
                byte[] first = new byte[len];
                shards[i].get(0, first);
                assertArrayEquals(expected[i], first, rs.backend() + ": shard " + i + " after update");
            }
            rs.afterBuffersChecked(null);
        }
    }

    /**
     * update patches the parity in C, then copies the new data into the data shard. A limit cut by another thread
     * during the call must not stop that copy half way: the parity would already describe the new data while the
     * shard still held the old, and a later reconstruct would rebuild wrong bytes. Before, the copy was a
     * bounds-checked {@code put} against the buffers' current limits, so here update threw
     * {@code IndexOutOfBoundsException} after patching the parity, leaving the stripe inconsistent (verify false).
     * Now the data goes to the checked address, while the call still holds the buffers, as the parity does.
     */
    @Test
    void aLimitCutDuringAnUpdateStillReplacesTheCheckedData() {
        final int len = 4096;
        for (ErasureCodec rs : Codecs.all(4, 2, Matrix.VANDERMONDE)) {
            byte[][] expected = Codecs.randomStripe(new Random(7), 4, 2, len);
            ErasureCodec.create(4, 2).encode(expected);
            ByteBuffer[] shards = new ByteBuffer[6];
            for (int i = 0; i < 6; i++) {
                shards[i] = ByteBuffer.allocateDirect(len).put(0, expected[i]);
            }
            byte[] newData = new byte[len];
            new Random(8).nextBytes(newData);
            ByteBuffer fresh = ByteBuffer.allocateDirect(len).put(0, newData);
            rs.afterBuffersChecked(() -> {
                shards[2].limit(0);
                fresh.limit(0);
            });
            try {
                rs.update(shards, 2, fresh);
            } finally {
                rs.afterBuffersChecked(null);
            }
            expected[2] = newData;
            ErasureCodec.create(4, 2).encode(expected);
            for (int i = 0; i < 6; i++) {
                byte[] got = new byte[len];
                shards[i].clear().get(0, got);
                assertArrayEquals(expected[i], got, rs + ": shard " + i + " after update");
            }
            assertTrue(rs.verify(shards), rs + ": the stripe is consistent");
        }
    }
}
