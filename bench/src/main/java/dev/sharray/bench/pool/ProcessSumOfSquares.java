package dev.sharray.bench.pool;

import dev.sharray.SharedArray;
import dev.sharray.bench.Jvm;
import dev.sharray.bench.peers.Params;
import dev.sharray.bench.peers.Workload;

import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * The machine's ceiling for the pool's 2-worker scaling: the {@link SumOfSquares} kernel over the same kind of
 * 1 GiB FLOAT64 array, in {@code processes} bare child JVMs (default 1) that each read their own run of rows in
 * place, started by one line on their stdin and answering with one line. No pool: what two processes on this
 * machine scale to, against which the pool's 2 workers ÷ 1 can be read (two threads of one JVM share one address
 * space, which two processes do not).
 */
public class ProcessSumOfSquares implements Workload {
    private SharedArray array;
    private final List<Jvm> children = new ArrayList<>();

    /** For the harness. */
    public ProcessSumOfSquares() {
    }

    @Override
    public void setUp(Params params) throws Exception {
        final int processes = (int) params.getLong("processes", 1);
        array = PoolWorkloads.filled(params.getLong("bytes", 1L << 30), 1.0);
        final long rows = array.shape()[0];
        final long perChild = (rows + processes - 1) / processes;
        final HexFormat hex = HexFormat.of();
        for (long from = 0; from < rows; from += perChild) {
            try (SharedArray part = array.slice(0, from, Math.min(rows, from + perChild), 1)) {
                children.add(Jvm.start(SumOfSquaresChild.class, List.of("-Xmx64m"),
                    hex.formatHex(part.descriptor().toBytes())));
            }
        }
        for (Jvm child : children) {
            child.expect(SumOfSquaresChild.READY);
        }
    }

    @Override
    public double run() throws Exception {
        final long t0 = System.nanoTime();
        for (Jvm child : children) {
            child.send(SumOfSquaresChild.GO);
        }
        double sum = 0;
        for (Jvm child : children) {
            sum += Double.parseDouble(child.expect(SumOfSquaresChild.SUM));
        }
        final double seconds = (System.nanoTime() - t0) * 1e-9;
        PoolWorkloads.checkSumOfSquares(sum, array);
        return seconds;
    }

    @Override
    public void close() {
        for (Jvm child : children) {
            child.close();
        }
        if (array != null) {
            array.release(); // after the children: each has released its view when its stdin closed
        }
    }
}
