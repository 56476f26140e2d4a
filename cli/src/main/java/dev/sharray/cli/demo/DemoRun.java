package dev.sharray.cli.demo;

import dev.sharray.ArrayInfo;
import dev.sharray.DType;
import dev.sharray.SharedArray;
import dev.sharray.SharedArrays;
import dev.sharray.cli.CliException;
import dev.sharray.cli.Parallel;
import dev.sharray.cli.ParallelTask;
import dev.sharray.cli.Sizes;
import dev.sharray.cli.Ui;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;

/**
 * The demo's steps on one FLOAT64 shared array and its RS(10,4) parity: create, fill, map in place,
 * reduce, encode in place, destroy four shards per stripe, reconstruct, verify, release. Each step is
 * timed; the result is the table rows.
 */
final class DemoRun {
    private final StripeLayout layout;
    private final Parallel parallel;
    private final List<DemoStep> steps = new ArrayList<>();

    DemoRun(StripeLayout layout, Parallel parallel) {
        this.layout = layout;
        this.parallel = parallel;
    }

    /** Runs every step; throws {@link CliException} when a check fails. */
    List<DemoStep> run() {
        StripeLayout l = layout;
        long dataBytes = l.dataBytes();
        long parityBytes = l.parityBytes();
        long erasedBytes = (long) l.stripes() * l.m() * l.shardLength();
        List<Integer> stripes = IntStream.range(0, l.stripes()).boxed().toList();
        Path dataPath;
        Path parityPath;
        long t = System.nanoTime();
        SharedArray data = SharedArray.create(DType.FLOAT64, l.elements());
        SharedArray parity;
        try {
            parity = SharedArray.create(DType.UINT8, (long) l.stripes() * l.m(), l.shardLength());
        } catch (RuntimeException e) {
            data.release();
            throw e;
        }
        dataPath = data.path();
        parityPath = parity.path();
        steps.add(new DemoStep("create " + Sizes.format(dataBytes) + " FLOAT64 + parity", dataBytes + parityBytes, secs(t), -1));
        try {
            step("fill x[i] = i mod 1000", dataBytes, dataBytes, g -> DemoTasks.fill(data, l, g), stripes);
            step("map in place: x *= 2", dataBytes, 2 * dataBytes, g -> DemoTasks.scale(data, l, g), stripes);
            t = System.nanoTime();
            List<Double> sums = parallel.map(g -> DemoTasks.sum(data, l, g), stripes);
            double sum = sums.stream().mapToDouble(Double::doubleValue).sum();
            steps.add(new DemoStep("reduce: sum", dataBytes, secs(t), dataBytes));
            double expected = DemoTasks.expectedSum(l.elements());
            if (sum != expected) {
                throw new CliException("demo check failed: sum is " + sum + ", expected " + expected);
            }
            step("erasure-code RS(" + l.k() + "," + l.m() + ") in place", dataBytes, dataBytes + parityBytes,
                g -> DemoTasks.encode(data, parity, l, g), stripes);
            step("destroy " + l.m() + " of " + (l.k() + l.m()) + " shards per stripe", erasedBytes, -1,
                g -> DemoTasks.destroy(data, parity, l, g), stripes);
            step("reconstruct " + l.m() + " shards per stripe", erasedBytes,
                (long) l.stripes() * (l.k() + l.m()) * l.shardLength(), g -> DemoTasks.reconstruct(data, parity, l, g), stripes);
            t = System.nanoTime();
            List<Boolean> ok = parallel.map(g -> DemoTasks.verify(data, parity, l, g), stripes);
            steps.add(new DemoStep("verify bytes and parity", dataBytes + parityBytes, secs(t), dataBytes + parityBytes));
            int bad = (int) ok.stream().filter(b -> !b).count();
            if (bad > 0) {
                throw new CliException("demo check failed: " + bad + " of " + l.stripes() + " stripes differ after reconstruction");
            }
        } finally {
            t = System.nanoTime();
            parity.release();
            data.release();
            steps.add(new DemoStep("release", dataBytes + parityBytes, secs(t), -1, false));
        }
        requireGone(dataPath, parityPath);
        return steps;
    }

    private <R> void step(String name, long bytes, long copy, ParallelTask<Integer, R> task, List<Integer> stripes) {
        long t = System.nanoTime();
        parallel.map(task, stripes);
        steps.add(new DemoStep(name, bytes, secs(t), copy));
    }

    private static double secs(long t0) {
        return (System.nanoTime() - t0) / 1e9;
    }

    private static void requireGone(Path... paths) {
        for (Path p : paths) {
            if (Files.exists(p)) {
                throw new CliException("demo left a file behind: " + p);
            }
        }
        for (ArrayInfo a : SharedArrays.list()) {
            for (Path p : paths) {
                if (a.path().equals(p)) {
                    throw new CliException("demo array still listed: " + p);
                }
            }
        }
        Ui.info("released everything: no demo files left");
    }
}
