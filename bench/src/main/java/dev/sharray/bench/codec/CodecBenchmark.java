package dev.sharray.bench.codec;

import dev.sharray.codec.Backend;
import dev.sharray.codec.ErasureCodec;
import java.nio.ByteBuffer;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * RS(10,4) with 1 MiB shards on one thread: encode, and reconstruct of 4 lost data shards, per backend.
 * Each operation processes 10 MiB of data, so GB/s of data = ops/s * 10 * 2^20 / 1e9.
 *
 * <p>{@code form=BUFFERS} runs on direct ByteBuffers (zero-copy, how shared memory is coded);
 * {@code form=ARRAYS} on {@code byte[][]} (the Java backend's native form; the native ones stage
 * through per-thread direct memory). Run with the project's JVM flags, e.g.
 * {@code java -cp ... org.openjdk.jmh.Main CodecBenchmark -jvmArgsAppend @target/jvm.args}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--add-modules=jdk.incubator.vector", "-Xmx1g"})
@Threads(1)
public class CodecBenchmark {
    private static final int K = 10;
    private static final int M = 4;
    private static final int SHARD = 1 << 20;
    private static final int[] LOST = {0, 2, 4, 6};

    @Param({"NATIVE", "ISAL", "JAVA"})
    public Backend backend;

    @Param({"BUFFERS", "ARRAYS"})
    public String form;

    private ErasureCodec codec;
    private byte[][] arrays;
    private ByteBuffer[] buffers;
    private final boolean[] present = new boolean[K + M];

    @Setup(Level.Trial)
    public void setUp() {
        codec = ErasureCodec.builder(K, M).backend(backend).build();
        Random rnd = new Random(1);
        arrays = new byte[K + M][SHARD];
        buffers = new ByteBuffer[K + M];
        for (int i = 0; i < K + M; i++) {
            if (i < K) {
                rnd.nextBytes(arrays[i]);
            }
            buffers[i] = ByteBuffer.allocateDirect(SHARD).put(0, arrays[i]);
        }
        codec.encode(arrays);
        codec.encode(buffers);
        java.util.Arrays.fill(present, true);
        for (int i : LOST) {
            present[i] = false;
        }
    }

    @Benchmark
    public void encode() {
        if (form.equals("BUFFERS")) {
            codec.encode(buffers);
        } else {
            codec.encode(arrays);
        }
    }

    /** Rebuilds the 4 lost data shards from the 10 survivors (in place; the lost ones are overwritten). */
    @Benchmark
    public void reconstruct4() {
        if (form.equals("BUFFERS")) {
            codec.reconstruct(buffers, present);
        } else {
            codec.reconstruct(arrays, present);
        }
    }
}
