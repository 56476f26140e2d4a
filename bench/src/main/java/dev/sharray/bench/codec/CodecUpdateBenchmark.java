package dev.sharray.bench.codec;

import dev.sharray.DType;
import dev.sharray.SharedArray;
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
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * RS(10,4) {@code update} of one 1 MiB data shard, on each form: {@code byte[][]}, direct ByteBuffers, and
 * a SharedArray stripe (the new data a heap {@code byte[]}). Each operation patches 4 parity shards from
 * the old and new 1 MiB, and the form's figures compare directly. Alternating between two new contents
 * keeps the parity consistent with the data.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--add-modules=jdk.incubator.vector", "-Xmx1g"})
@Threads(1)
public class CodecUpdateBenchmark {
    private static final int K = 10;
    private static final int M = 4;
    private static final int SHARD = 1 << 20;
    private static final int INDEX = 3;

    @Param({"NATIVE", "JAVA"})
    public Backend backend;

    @Param({"ARRAYS", "BUFFERS", "SHARED"})
    public String form;

    private ErasureCodec codec;
    private byte[][] arrays;
    private ByteBuffer[] buffers;
    private SharedArray stripe;
    private final byte[][] newData = new byte[2][SHARD];
    private final ByteBuffer[] newBuffers = new ByteBuffer[2];
    private int turn;

    @Setup(Level.Trial)
    public void setUp() {
        codec = ErasureCodec.builder(K, M).backend(backend).build();
        Random rnd = new Random(1);
        arrays = new byte[K + M][SHARD];
        buffers = new ByteBuffer[K + M];
        stripe = SharedArray.create(DType.UINT8, K + M, SHARD);
        for (int i = 0; i < K; i++) {
            rnd.nextBytes(arrays[i]);
        }
        codec.encode(arrays);
        for (int i = 0; i < K + M; i++) {
            buffers[i] = ByteBuffer.allocateDirect(SHARD).put(0, arrays[i]);
            try (SharedArray row = stripe.select(0, i)) {
                row.copyFrom(arrays[i]);
            }
        }
        for (int v = 0; v < 2; v++) {
            rnd.nextBytes(newData[v]);
            newBuffers[v] = ByteBuffer.allocateDirect(SHARD).put(0, newData[v]);
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        if (!codec.verify(stripe) || !codec.verify(arrays) || !codec.verify(buffers)) {
            throw new IllegalStateException("update left wrong parity");
        }
        stripe.close();
    }

    @Benchmark
    public void update() {
        int v = turn ^= 1;
        switch (form) {
            case "ARRAYS" -> codec.update(arrays, INDEX, newData[v]);
            case "BUFFERS" -> codec.update(buffers, INDEX, newBuffers[v]);
            default -> codec.update(stripe, INDEX, newData[v]);
        }
    }
}
