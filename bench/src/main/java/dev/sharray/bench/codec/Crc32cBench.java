package dev.sharray.bench.codec;

import dev.sharray.codec.Crc32c;
import java.nio.ByteBuffer;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32C;
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
import org.openjdk.jmh.annotations.Warmup;

/**
 * CRC-32C of a direct buffer: {@link Crc32c#update} (libsharraycodec under its SIGBUS guard, what the ec
 * commands use on mapped files) against the JDK's {@link CRC32C} intrinsic (which ends the JVM if the file
 * under a mapped buffer shrinks). 4 KiB shows the per-call cost, 1 MiB the throughput in cache, 64 MiB from
 * memory. Bytes per second = ops/s x size.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xmx1g"})
public class Crc32cBench {
    @Param({"4096", "1048576", "67108864"})
    public int size;

    private ByteBuffer buffer;
    private final CRC32C jdk = new CRC32C();

    @Setup(Level.Trial)
    public void setUp() {
        byte[] bytes = new byte[size];
        new Random(1).nextBytes(bytes);
        buffer = ByteBuffer.allocateDirect(size).put(bytes).flip();
        if (Crc32c.update(0, buffer) != jdk()) {
            throw new IllegalStateException("the two CRCs differ");
        }
    }

    /** @return the JDK's CRC-32C of the buffer */
    @Benchmark
    public int jdk() {
        jdk.reset();
        jdk.update(buffer.duplicate());
        return (int) jdk.getValue();
    }

    /** @return sharray's CRC-32C of the buffer */
    @Benchmark
    public int sharray() {
        return Crc32c.update(0, buffer);
    }
}
