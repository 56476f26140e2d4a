package dev.sharray.bench.peers;

import dev.sharray.bench.Jvm;
import java.io.BufferedOutputStream;
import java.io.ObjectOutputStream;
import java.util.Arrays;
import java.util.List;

/**
 * Copy-based handoff baseline: the parent writes a {@code double[]} with {@link ObjectOutputStream} into the
 * child JVM's stdin; the child deserializes it and answers. One run = one round trip for 1 GiB, the median
 * of many for small arrays.
 */
public class SerializationHandoff implements Workload {
    private Jvm child;
    private ObjectOutputStream out;
    private double[] data;
    private int trips;

    /** For the harness. */
    public SerializationHandoff() {
    }

    @Override
    public void setUp(Params params) throws Exception {
        long bytes = params.getLong("bytes", 1 << 20);
        data = new double[Math.toIntExact(bytes / 8)];
        Arrays.fill(data, 1.0);
        long heapMiB = Math.max(256, 2 * (bytes >> 20) + 256);
        child = Jvm.start(HandoffChild.class, List.of("-Xmx" + heapMiB + "m", "-XX:+UseParallelGC"), "serial");
        out = new ObjectOutputStream(new BufferedOutputStream(child.stdin(), 1 << 16));
        trips = bytes <= (64L << 20) ? 50 : 1;
    }

    @Override
    public double run() throws Exception {
        double[] times = new double[trips];
        for (int i = 0; i < trips; i++) {
            long t0 = System.nanoTime();
            out.writeObject(data);
            out.flush();
            out.reset();
            child.expect("ok ");
            times[i] = (System.nanoTime() - t0) * 1e-9;
        }
        return Stats.median(times);
    }

    @Override
    public void close() throws Exception {
        if (child != null) {
            out.close();
            child.close();
        }
        data = null;
    }
}
