package dev.sharray.bench;

import dev.sharray.Descriptor;
import dev.sharray.SharedArray;
import java.io.IOException;
import java.util.HexFormat;
import java.util.List;
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
import org.openjdk.jmh.annotations.Warmup;

/**
 * {@code SharedArray.open(descriptor)} + {@code release()} of an array that another JVM created and holds,
 * for 1 MiB and 1 GiB FLOAT64 arrays. The benchmark JVM is the "other JVM" of issue 3: each open maps the
 * file, takes a slot in the refcount file, and each release drops it and unmaps. Bars (issue 3): 1 GiB
 * within 2x of 1 MiB, and under 50 us median warm. Sample mode, so JMH reports the median (p0.50).
 *
 * <ul>
 *   <li>{@code openRelease}: map + refcount + unmap, no element touched;</li>
 *   <li>{@code openReadRelease}: the same, reading the first and last element (two page faults);</li>
 *   <li>{@code openReleaseHeld}: this JVM already holds a handle, so open reuses the mapping (the same-process
 *       path: a refcount increment and decrement);</li>
 *   <li>{@code retainReleaseHeld}: {@code retain()} of that held handle and its release: the reference a view,
 *       a slice or the codec takes, under the lock that keeps it from racing the last release.</li>
 * </ul>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class OpenReleaseBench {
    /** Array size in bytes: 1 MiB and 1 GiB. */
    @Param({"1048576", "1073741824"})
    public long bytes;

    private Jvm holder;
    private Descriptor descriptor;
    private long last;

    /**
     * Starts the helper JVM that creates and holds the array.
     *
     * @throws IOException when it cannot start
     */
    @Setup(Level.Trial)
    public void setUp() throws IOException {
        holder = Jvm.start(ArrayHolder.class, List.of("-Xmx64m"), Long.toString(bytes));
        descriptor = Descriptor.fromBytes(HexFormat.of().parseHex(holder.expect("DESCRIPTOR ")));
        last = bytes / 8 - 1;
    }

    /** Lets the helper JVM release the array and exit. */
    @TearDown(Level.Trial)
    public void tearDown() {
        holder.close();
    }

    /** @return whether the handle was open */
    @Benchmark
    public boolean openRelease() {
        SharedArray a = SharedArray.open(descriptor);
        boolean open = !a.isReleased();
        a.release();
        return open;
    }

    /** @return the first plus the last element */
    @Benchmark
    public double openReadRelease() {
        SharedArray a = SharedArray.open(descriptor);
        double v = a.getDouble(0) + a.getDouble(last);
        a.release();
        return v;
    }

    /** A handle this JVM keeps open during the measurement. */
    @State(Scope.Benchmark)
    public static class Held {
        SharedArray handle;

        /**
         * @param bench the outer state, whose helper JVM created the array
         */
        @Setup(Level.Trial)
        public void setUp(OpenReleaseBench bench) {
            handle = SharedArray.open(bench.descriptor);
        }

        /** Releases the kept handle. */
        @TearDown(Level.Trial)
        public void tearDown() {
            handle.release();
        }
    }

    /**
     * @param held keeps the mapping alive in this JVM
     * @return whether the handle was open
     */
    @Benchmark
    public boolean openReleaseHeld(Held held) {
        SharedArray a = SharedArray.open(descriptor);
        boolean open = !a.isReleased();
        a.release();
        return open;
    }

    /**
     * @param held the handle whose view is taken
     * @return whether the view was open
     */
    @Benchmark
    public boolean retainReleaseHeld(Held held) {
        SharedArray v = held.handle.retain();
        boolean open = !v.isReleased();
        v.release();
        return open;
    }
}
