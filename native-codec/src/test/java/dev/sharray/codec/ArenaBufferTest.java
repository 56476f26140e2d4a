package dev.sharray.codec;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Direct buffers of a memory segment ({@code MemorySegment.asByteBuffer()}) stay allocated while the codec's
 * native code works on them: a buffer whose arena is closed is refused before any kernel runs, a close during
 * a call fails in the closing thread, and whatever a call held it lets go of, also when it fails. Before, C
 * read and wrote the freed memory (a 1 MiB shard read back garbage; a write corrupts the JVM's heap, and memory
 * given back to the system ends the JVM).
 *
 * <p>The tests reach the foreign memory API by reflection (the code is compiled for 17): {@code java.lang.foreign}
 * from JDK 22, where it is final, and JDK 17's incubating {@code jdk.incubator.foreign} (arenas are resource
 * scopes there; native-codec's pom adds the module to the test JVM on JDK 17). JDK 18 to 21, whose APIs differ
 * again and which the project does not build on, skip them.
 */
class ArenaBufferTest {
    private static final int K = 4;
    private static final int M = 2;
    private static final int LEN = 1 << 20; // past malloc's mmap threshold: freed, it is unmapped

    @BeforeEach
    void foreignMemoryApi() {
        assumeTrue(Arenas.FINAL_API || Runtime.version().feature() == 17, "the tests use java.lang.foreign (JDK 22+)"
            + " or JDK 17's jdk.incubator.foreign; this JVM is " + Runtime.version());
        assertTrue(Arenas.FINAL_API || ModuleLayer.boot().findModule("jdk.incubator.foreign").isPresent(),
            "JDK 17 runs these tests with --add-modules=jdk.incubator.foreign (native-codec's pom adds it)");
        assertTrue(BufferSessions.available(), "the codec cannot hold arenas: are jdk.internal.access and"
            + " jdk.internal.misc exported?");
    }

    @Test
    void aShardOfAClosedArenaIsRefusedByEveryOperationOfEveryBackend() throws Exception {
        // allocated before any arena closes: malloc may hand out the freed memory of a closed one again
        final ByteBuffer newData = ByteBuffer.allocateDirect(LEN);
        for (ErasureCodec codec : Codecs.all(K, M, Matrix.VANDERMONDE)) {
            final List<Consumer<ByteBuffer[]>> calls = List.of(
                codec::encode,
                s -> codec.verify(s),
                s -> codec.reconstruct(s, present(1)),
                s -> codec.reconstructData(s, present(1)),
                s -> codec.update(s, 0, newData));
            for (Consumer<ByteBuffer[]> call : calls) {
                try (Arenas live = new Arenas(); Arenas closing = new Arenas()) {
                    final ByteBuffer[] shards = live.stripe();
                    shards[3] = closing.buffer(LEN);
                    closing.close();
                    final byte[] parityBefore = bytes(shards[K]);
                    final IllegalStateException e = assertThrows(IllegalStateException.class, () -> call.accept(shards),
                        codec.toString());
                    assertTrue(e.getMessage().contains("shard 3") && e.getMessage().contains("closed"), e.getMessage());
                    assertArrayEquals(parityBefore, bytes(shards[K]), "a refused call wrote parity: " + codec);
                    // shards 0-2 were held before shard 3 was refused: they were let go of, so their arena closes
                    live.close();
                }
            }
        }
    }

    /**
     * Memory freed by a closing arena may be handed out again at once, here to the shards allocated after it. A
     * buffer of the closed arena is then refused as closed, not as overlapping the shard that now has its address.
     * Before, the overlap check ran before the arenas were held, and on JDK 17 (1 MiB shards) encode said "shard 4
     * overlaps shard 0 in memory; shards that are written must not overlap any other".
     */
    @Test
    void aShardOfAClosedArenaIsRefusedAsClosedEvenWhereAnotherShardTookItsAddress() throws Exception {
        final ErasureCodec codec = ErasureCodec.create(K, M);
        final ByteBuffer newData = ByteBuffer.allocateDirect(LEN);
        final List<Consumer<ByteBuffer[]>> calls = List.of(
            codec::encode,
            s -> codec.reconstruct(s, present(K)),
            s -> codec.update(s, 0, newData));
        for (Consumer<ByteBuffer[]> call : calls) {
            try (Arenas closing = new Arenas()) {
                final ByteBuffer closed = closing.buffer(LEN);
                closing.close();
                final ByteBuffer[] shards = new ByteBuffer[K + M];
                for (int i = 0; i < K + M; i++) {
                    shards[i] = ByteBuffer.allocateDirect(LEN); // may get the memory the arena just freed
                }
                shards[K] = closed;
                final IllegalStateException e = assertThrows(IllegalStateException.class, () -> call.accept(shards));
                assertTrue(e.getMessage().contains("shard " + K) && e.getMessage().contains("closed"), e.getMessage());
            }
        }
    }

    @Test
    void newDataOfAClosedArenaIsRefused() throws Exception {
        final ErasureCodec codec = ErasureCodec.create(K, M);
        try (Arenas live = new Arenas(); Arenas closing = new Arenas()) {
            final ByteBuffer[] shards = live.stripe();
            final ByteBuffer newData = closing.buffer(LEN);
            closing.close();
            final IllegalStateException e = assertThrows(IllegalStateException.class, () -> codec.update(shards, 1, newData));
            assertTrue(e.getMessage().startsWith("newData cannot be used"), e.getMessage());
            live.close(); // every shard held before newData was let go of
        }
    }

    @Test
    void anArenaClosedDuringACallStaysOpenUntilItEnds() throws Exception {
        final ErasureCodec codec = ErasureCodec.create(K, M);
        final byte[][] heap = stripeBytes();
        codec.encode(heap);
        try (Arenas arena = new Arenas()) {
            final ByteBuffer[] shards = arena.stripe();
            final List<Throwable> refused = new ArrayList<>();
            codec.afterBuffersChecked(() -> refused.add(assertThrows(IllegalStateException.class, arena::close)));
            try {
                codec.encode(shards);
            } finally {
                codec.afterBuffersChecked(null);
            }
            assertEquals(1, refused.size());
            assertTrue(refused.get(0).getMessage().contains("acquired"), refused.get(0).getMessage());
            for (int i = K; i < K + M; i++) {
                assertArrayEquals(heap[i], bytes(shards[i]), "parity " + i);
            }
            arena.close(); // let go of after the call
        }
    }

    @Test
    void aShardOfAConfinedArenaOfAnotherThreadIsRefused() throws Exception {
        final ErasureCodec codec = ErasureCodec.create(K, M);
        try (Arenas confined = Arenas.confined()) {
            final ByteBuffer[] shards = confined.stripe();
            final ExecutionException e = assertThrows(ExecutionException.class,
                () -> CompletableFuture.runAsync(() -> codec.encode(shards)).get());
            assertTrue(e.getCause() instanceof IllegalStateException && e.getCause().getMessage().contains("shard 0"),
                String.valueOf(e.getCause()));
            codec.encode(shards); // its own thread may
        }
    }

    @Test
    void crc32cRefusesABufferOfAClosedArenaAndHoldsALiveOne() throws Exception {
        try (Arenas arena = new Arenas()) {
            final ByteBuffer live = arena.buffer(LEN);
            final byte[] bytes = new byte[LEN];
            new Random(3).nextBytes(bytes);
            live.put(0, bytes);
            final java.util.zip.CRC32C jdk = new java.util.zip.CRC32C();
            jdk.update(bytes);
            assertEquals((int) jdk.getValue(), Crc32c.update(0, live));
            arena.close(); // the checksum let go of it
            final IllegalStateException e = assertThrows(IllegalStateException.class, () -> Crc32c.update(0, live));
            assertTrue(e.getMessage().startsWith("the buffer cannot be used"), e.getMessage());
        }
    }

    /** Every shard present but {@code missing}. */
    private static boolean[] present(int missing) {
        final boolean[] p = new boolean[K + M];
        Arrays.fill(p, true);
        p[missing] = false;
        return p;
    }

    /** The same random stripe every time, parity zero. */
    private static byte[][] stripeBytes() {
        return Codecs.randomStripe(new Random(7), K, M, LEN);
    }

    private static byte[] bytes(ByteBuffer b) {
        final byte[] out = new byte[b.remaining()];
        b.get(b.position(), out);
        return out;
    }

    /**
     * An arena of {@code java.lang.foreign} (JDK 22+), or a resource scope of JDK 17's {@code jdk.incubator.foreign},
     * by reflection; closed at the end of the test if it is not yet.
     */
    private static final class Arenas implements AutoCloseable {
        static final boolean FINAL_API = Runtime.version().feature() >= 22;
        private static final String API = FINAL_API ? "java.lang.foreign." : "jdk.incubator.foreign.";
        private static final String ARENA = API + (FINAL_API ? "Arena" : "ResourceScope");
        private final Object arena;
        private boolean closed;

        Arenas() throws ReflectiveOperationException {
            this(FINAL_API ? "ofShared" : "newSharedScope");
        }

        private Arenas(String factory) throws ReflectiveOperationException {
            arena = Class.forName(ARENA).getMethod(factory).invoke(null);
        }

        static Arenas confined() throws ReflectiveOperationException {
            return new Arenas(FINAL_API ? "ofConfined" : "newConfinedScope");
        }

        ByteBuffer buffer(long size) throws ReflectiveOperationException {
            final Class<?> segments = Class.forName(API + "MemorySegment");
            final Object segment = FINAL_API
                ? Class.forName(ARENA).getMethod("allocate", long.class).invoke(arena, size)
                : segments.getMethod("allocateNative", long.class, Class.forName(ARENA)).invoke(null, size, arena);
            return (ByteBuffer) segments.getMethod("asByteBuffer").invoke(segment);
        }

        /** @return the K + M shards of {@link #stripeBytes()} in this arena */
        ByteBuffer[] stripe() throws ReflectiveOperationException {
            final byte[][] rows = stripeBytes();
            final ByteBuffer[] shards = new ByteBuffer[rows.length];
            for (int i = 0; i < rows.length; i++) {
                shards[i] = buffer(LEN);
                shards[i].put(0, rows[i]);
            }
            return shards;
        }

        @Override
        public void close() throws ReflectiveOperationException {
            if (closed) {
                return;
            }
            try {
                Class.forName(ARENA).getMethod("close").invoke(arena);
            } catch (java.lang.reflect.InvocationTargetException e) {
                if (e.getCause() instanceof RuntimeException) {
                    throw (RuntimeException) e.getCause(); // e.g. the IllegalStateException of a held arena
                }
                throw e;
            }
            closed = true;
        }
    }
}
