package dev.sharray.bench;

import dev.sharray.DType;
import dev.sharray.Descriptor;
import dev.sharray.SharedArray;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/** Encoding and decoding a descriptor (what crosses a process boundary instead of the data). */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class DescriptorBench {
    private SharedArray array;
    private Descriptor descriptor;
    private byte[] bytes;

    /** Creates a 2-D array and takes the descriptor of its transpose. */
    @Setup
    public void setUp() {
        array = SharedArray.create(DType.FLOAT64, 1000, 1000);
        try (SharedArray t = array.transpose()) {
            descriptor = t.descriptor();
        }
        bytes = descriptor.toBytes();
    }

    /** Releases the array. */
    @TearDown
    public void tearDown() {
        array.release();
    }

    /** @return the binary form */
    @Benchmark
    public byte[] toBytes() {
        return descriptor.toBytes();
    }

    /** @return the parsed descriptor (validated, CRC-checked) */
    @Benchmark
    public Descriptor fromBytes() {
        return Descriptor.fromBytes(bytes);
    }
}
