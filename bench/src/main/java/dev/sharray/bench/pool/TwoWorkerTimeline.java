package dev.sharray.bench.pool;

import dev.sharray.SharedArray;
import dev.sharray.bench.peers.Params;
import dev.sharray.bench.peers.Stats;
import dev.sharray.pool.ProcessPool;
import dev.sharray.pool.RemoteFunction;

import java.util.List;
import java.util.Locale;

/**
 * Where the time of the harness's {@code scaling.sumsq.pool} row goes: the same two pools (one call of one
 * task, one call of two chunks, alternated, each measured call right after an unmeasured one of its own), but
 * each chunk also reports when it started and how long its kernel ran, so a call's time splits into the wait
 * before the later chunk starts, the slower chunk's own run, and the wait from its end until {@code mapChunks}
 * returns. {@link System#nanoTime()} is {@code CLOCK_MONOTONIC}, one clock for every process on the machine.
 *
 * <p>Usage: {@code java @target/jvm.args -cp <bench classpath> dev.sharray.bench.pool.TwoWorkerTimeline
 * [runs=30] [MiB=1024]}
 */
public final class TwoWorkerTimeline {
    /** {start, end, pid}, from the worker's clock, around the kernel. */
    private static final RemoteFunction<SharedArray, long[]> TIMED_SUM_OF_SQUARES = chunk -> {
        final long start = System.nanoTime();
        final double sum = Kernels.sumOfSquares(chunk);
        final long end = System.nanoTime();
        if (sum != chunk.size()) {
            throw new IllegalStateException("sum of squares " + sum + ", expected " + chunk.size());
        }
        return new long[] {start, end, ProcessHandle.current().pid()};
    };

    private TwoWorkerTimeline() {
    }

    /**
     * @param args optional run count and array size in MiB
     * @throws Exception when a pool fails
     */
    public static void main(String[] args) throws Exception {
        final int runs = args.length > 0 ? Integer.parseInt(args[0]) : 30;
        final long bytes = (args.length > 1 ? Long.parseLong(args[1]) : 1024) << 20;
        final Params params = Params.parse("workers=2");
        SharedArray oneArray = null;
        SharedArray twoArray = null;
        ProcessPool one = null;
        ProcessPool two = null;
        try {
            oneArray = PoolWorkloads.filled(bytes, 1.0);
            twoArray = PoolWorkloads.filled(bytes, 1.0);
            one = PoolWorkloads.pool(params);
            two = PoolWorkloads.pool(params);
            PoolWorkloads.warmTaskPath(one, oneArray); // as the harness's SumOfSquares does
            PoolWorkloads.warmTaskPath(two, twoArray);
            final long rows = oneArray.shape()[0];
            final double[] oneWorker = new double[runs];
            final double[] twoWorkers = new double[runs];
            final double[] lastStart = new double[runs];
            final double[] slowerRun = new double[runs];
            final double[] endToReturn = new double[runs];
            for (int i = -2; i < runs; i++) { // two unrecorded warm-up pairs
                one.mapChunks(oneArray, rows, TIMED_SUM_OF_SQUARES);
                final long t0 = System.nanoTime();
                one.mapChunks(oneArray, rows, TIMED_SUM_OF_SQUARES);
                final long t1 = System.nanoTime();
                two.mapChunks(twoArray, (rows + 1) / 2, TIMED_SUM_OF_SQUARES);
                final long u0 = System.nanoTime();
                final List<long[]> chunks = two.mapChunks(twoArray, (rows + 1) / 2, TIMED_SUM_OF_SQUARES);
                final long u1 = System.nanoTime();
                if (i < 0) {
                    continue;
                }
                final long[] a = chunks.get(0);
                final long[] b = chunks.get(1);
                oneWorker[i] = ms(t1 - t0);
                twoWorkers[i] = ms(u1 - u0);
                lastStart[i] = ms(Math.max(a[0], b[0]) - u0);
                slowerRun[i] = ms(Math.max(a[1] - a[0], b[1] - b[0]));
                endToReturn[i] = ms(u1 - Math.max(a[1], b[1]));
                System.out.printf(Locale.ROOT, "%3d  1 worker %6.2f ms | 2 workers %6.2f ms (%.2fx): chunks start at"
                        + " %5.2f and %5.2f ms, run %6.2f and %6.2f ms, last ends %5.2f ms before mapChunks returns%n",
                    i, oneWorker[i], twoWorkers[i], oneWorker[i] / twoWorkers[i], ms(a[0] - u0), ms(b[0] - u0),
                    ms(a[1] - a[0]), ms(b[1] - b[0]), endToReturn[i]);
            }
            final double[] ratios = new double[runs];
            for (int i = 0; i < runs; i++) {
                ratios[i] = oneWorker[i] / twoWorkers[i];
            }
            System.out.printf(Locale.ROOT, "medians of %d runs: 1 worker %.2f ms, 2 workers %.2f ms, ratio run by run"
                    + " %.2fx; in the 2-worker call: later chunk starts at %.2f ms, slower chunk runs %.2f ms, its end"
                    + " to the return %.2f ms%n", runs, Stats.median(oneWorker), Stats.median(twoWorkers), Stats.median(ratios),
                Stats.median(lastStart), Stats.median(slowerRun), Stats.median(endToReturn));
        } finally {
            PoolWorkloads.close(one, oneArray);
            PoolWorkloads.close(two, twoArray);
        }
    }

    private static double ms(long nanos) {
        return nanos / 1e6;
    }
}
