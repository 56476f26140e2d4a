package dev.sharray.bench.peers;

import dev.sharray.DType;
import dev.sharray.SharedArray;
import dev.sharray.bench.Jvm;
import java.util.HexFormat;
import java.util.List;

/**
 * sharray handoff: the parent sends the array's descriptor bytes to the child JVM, which opens the same
 * memory, reads the first and last element, releases it and answers. One run = the median of 200 round
 * trips (the cost does not depend on the size; the 1 GiB row proves it).
 */
public class DescriptorHandoff implements Workload {
    private static final int TRIPS = 200;
    private Jvm child;
    private SharedArray array;

    /** For the harness. */
    public DescriptorHandoff() {
    }

    @Override
    public void setUp(Params params) throws Exception {
        long n = params.getLong("bytes", 1 << 20) / 8;
        array = SharedArray.create(DType.FLOAT64, n);
        double[] chunk = new double[1 << 20];
        java.util.Arrays.fill(chunk, 1.0);
        for (long start = 0; start < n; start += chunk.length) {
            long stop = Math.min(n, start + chunk.length);
            try (SharedArray part = array.slice(0, start, stop, 1)) {
                part.copyFrom(stop - start == chunk.length ? chunk : java.util.Arrays.copyOf(chunk, (int) (stop - start)));
            }
        }
        child = Jvm.start(HandoffChild.class, List.of("-Xmx64m"), "descriptor");
    }

    @Override
    public double run() throws Exception {
        double[] times = new double[TRIPS];
        HexFormat hex = HexFormat.of();
        for (int i = 0; i < TRIPS; i++) {
            long t0 = System.nanoTime();
            child.send(hex.formatHex(array.descriptor().toBytes()));
            child.expect("ok ");
            times[i] = (System.nanoTime() - t0) * 1e-9;
        }
        return Stats.median(times);
    }

    @Override
    public void close() {
        if (child != null) {
            child.close();
        }
        if (array != null) {
            array.release();
        }
    }
}
