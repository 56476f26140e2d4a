package dev.sharray.bench;

import dev.sharray.DType;
import dev.sharray.SharedArray;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * {@code SharedArray.create} + {@code release()} of a FLOAT64 array in the default temp root, no element touched:
 * the file made and preallocated, its header written, mapped, a refcount slot taken, then the last release
 * deleting it. 64 KiB sits below the size from which create also checks the memory a tmpfs can still take
 * ({@code /proc/meminfo} and the memory cgroup's files); 1 MiB is the first size that pays for that check.
 * Sample mode, so JMH reports the median (p0.50).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class CreateReleaseBench {
    /** Array size in bytes: just below and at the memory check's threshold. */
    @Param({"65536", "1048576"})
    public long bytes;

    /** @return whether the new array was open */
    @Benchmark
    public boolean createRelease() {
        SharedArray a = SharedArray.create(DType.FLOAT64, bytes / 8);
        boolean open = !a.isReleased();
        a.release();
        return open;
    }
}
