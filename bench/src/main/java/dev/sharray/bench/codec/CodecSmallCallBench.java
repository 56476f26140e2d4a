package dev.sharray.bench.codec;

import dev.sharray.codec.ErasureCodec;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

import java.nio.ByteBuffer;
import java.util.Random;
import java.util.concurrent.TimeUnit;

/**
 * The fixed cost of one codec call on small direct buffers: RS(10,4) encode of {@code shard}-byte shards, the
 * call's checks, the holding of arena-backed buffers and the JNA call included. {@code memory=DIRECT} shards
 * come from {@code ByteBuffer.allocateDirect}; {@code memory=ARENA} from a shared {@code java.lang.foreign}
 * arena (JDK 22+ only: reached by reflection, this module is compiled for 17), whose buffers the codec holds
 * open for the call.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class CodecSmallCallBench {
    private static final int K = 10;
    private static final int M = 4;

    /** Bytes per shard. */
    @Param({"1024"})
    public int shard;

    /** Where the shards live: DIRECT or ARENA. */
    @Param({"DIRECT", "ARENA"})
    public String memory;

    private ErasureCodec codec;
    private ByteBuffer[] buffers;
    private AutoCloseable arena;

    /** Allocates and fills the stripe. */
    @Setup(Level.Trial)
    public void setUp() throws Exception {
        codec = ErasureCodec.create(K, M);
        buffers = new ByteBuffer[K + M];
        if (memory.equals("ARENA")) {
            final Class<?> arenas = Class.forName("java.lang.foreign.Arena");
            arena = (AutoCloseable) arenas.getMethod("ofShared").invoke(null);
        }
        final Random rnd = new Random(1);
        for (int i = 0; i < K + M; i++) {
            buffers[i] = arena == null ? ByteBuffer.allocateDirect(shard) : arenaBuffer();
            final byte[] b = new byte[shard];
            rnd.nextBytes(b);
            buffers[i].put(0, b);
        }
    }

    private ByteBuffer arenaBuffer() throws ReflectiveOperationException {
        final Object segment = Class.forName("java.lang.foreign.Arena").getMethod("allocate", long.class)
            .invoke(arena, (long) shard);
        return (ByteBuffer) Class.forName("java.lang.foreign.MemorySegment").getMethod("asByteBuffer").invoke(segment);
    }

    /** Frees the arena, if any. */
    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        if (arena != null) {
            arena.close();
        }
    }

    /** One encode call. */
    @Benchmark
    public void encode() {
        codec.encode(buffers);
    }
}
