package dev.sharray.bench;

import dev.sharray.Backing;
import dev.sharray.DType;
import dev.sharray.ReapReport;
import dev.sharray.SharedArray;
import dev.sharray.SharedArrays;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
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
 * What the reaper costs while many arrays are alive: this JVM creates and holds {@code arrays} small arrays in a
 * private tmpfs root, and a pass looks at every one of them.
 *
 * <ul>
 *   <li>{@code reapProcessOfAnEndedPid}: {@link SharedArrays#reapProcess(long)} of a process that holds none of
 *       them, what the pool runs on every worker death before it reports the crash and starts a replacement;</li>
 *   <li>{@code reapPass}: {@link SharedArrays#reap()}, what every sharray process runs on its first use.</li>
 * </ul>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class ReaperScanBench {
    /** Live arrays the passes look at. */
    @Param({"2000"})
    public int arrays;

    private Path root;
    private final List<SharedArray> held = new ArrayList<>();
    private long endedPid;

    /**
     * Creates the arrays, and picks a pid no process can have (above the kernel's {@code pid_max}).
     *
     * @throws IOException when the root cannot be made
     */
    @Setup
    public void setUp() throws IOException {
        final Path shm = Path.of("/dev/shm");
        root = Files.createTempDirectory(Files.isDirectory(shm) ? shm : Path.of(System.getProperty("java.io.tmpdir")),
            "sharray-reaper-bench-");
        for (int i = 0; i < arrays; i++) {
            held.add(SharedArray.builder(DType.FLOAT64, 8).backing(Backing.AGRONA).folder(root).create());
        }
        // not Files.readString, which reads a numeric sysctl file as its first digit: pid 4 (pid_max 32768) can live
        try (java.io.InputStream in = Files.newInputStream(Path.of("/proc/sys/kernel/pid_max"))) {
            endedPid = Long.parseLong(new String(in.readAllBytes(), java.nio.charset.StandardCharsets.US_ASCII).trim()) + 1;
        }
    }

    /**
     * Releases the arrays and removes the root.
     *
     * @throws IOException when the root cannot be removed
     */
    @TearDown
    public void tearDown() throws IOException {
        held.forEach(SharedArray::release);
        held.clear();
        try (Stream<Path> files = Files.walk(root)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }

    /** @return what it removed (nothing) */
    @Benchmark
    public ReapReport reapProcessOfAnEndedPid() {
        return SharedArrays.reapProcess(endedPid);
    }

    /** @return what it removed (nothing of this JVM's arrays) */
    @Benchmark
    public ReapReport reapPass() {
        return SharedArrays.reap();
    }
}
