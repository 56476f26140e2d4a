package dev.sharray.cli.demo;

import dev.sharray.cli.Parallel;
import dev.sharray.cli.Sizes;
import dev.sharray.cli.TextTable;
import dev.sharray.cli.Ui;
import dev.sharray.cli.WorkersOption;
import dev.sharray.cli.Workload;
import java.io.PrintStream;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code sharray demo}: the main job end to end on one big shared array. */
@Command(name = "demo", mixinStandardHelpOptions = true,
    description = {"Create a big FLOAT64 shared array, fill it, map and reduce it in parallel in place, erasure-code it "
        + "in place as RS(10,4) stripes, destroy 4 shards per stripe, reconstruct them, verify every byte, and "
        + "release everything. Prints a table of steps, times, throughputs and what a copy-based handoff would move."})
public final class DemoCommand implements Callable<Integer> {
    /** The smallest array the demo accepts. */
    static final long MIN_SIZE = 1024;

    @Spec
    CommandSpec spec;

    @Mixin
    WorkersOption workers;

    @Option(names = {"-s", "--size"}, paramLabel = "BYTES", defaultValue = "1G", converter = dev.sharray.cli.Sizes.Converter.class,
        description = "Array size, e.g. 64M or 1G (default ${DEFAULT-VALUE}); reduced when memory or the temp folder is smaller.")
    long size;

    @Override
    public Integer call() {
        if (size < MIN_SIZE) { // a bad option value: a usage error (exit 2), like a size that does not parse
            throw new ParameterException(spec.commandLine(), "--size must be at least 1K, got " + size);
        }
        long bytes = DemoSizer.fit(size, workers.workers());
        long t0 = System.nanoTime();
        try (Parallel parallel = workers.compute(Workload.JAVA_LOOPS)) {
            String started = parallel.describe(); // starts the worker JVMs
            DemoStep start = new DemoStep("start " + started, 0, (System.nanoTime() - t0) / 1e9, -1);
            StripeLayout layout = StripeLayout.plan(bytes, 10, 4, parallel.workers());
            Ui.info(String.format(Locale.ROOT, "demo: %s FLOAT64 array (%d elements), %d stripes of RS(10,4) with %s shards, %s",
                Sizes.format(layout.dataBytes()), layout.elements(), layout.stripes(), Sizes.format(layout.shardLength()),
                parallel.describe()));
            List<DemoStep> steps = new java.util.ArrayList<>(List.of(start));
            steps.addAll(new DemoRun(layout, parallel).run());
            print(steps, parallel, Ui.out());
        }
        return 0;
    }

    private static void print(List<DemoStep> steps, Parallel parallel, PrintStream out) {
        TextTable t = new TextTable("step", ">bytes", ">time", ">throughput", ">copy-based handoff would move");
        double total = 0;
        long copy = 0;
        for (DemoStep s : steps) {
            t.row(s.name(), s.bytes() == 0 ? "-" : Sizes.format(s.bytes()), String.format(Locale.ROOT, "%.3f s", s.seconds()),
                s.rated() ? Sizes.rate(s.bytes(), s.seconds()) : "-", s.copyHandoff() < 0 ? "-" : Sizes.format(s.copyHandoff()));
            total += s.seconds();
            copy += Math.max(0, s.copyHandoff());
        }
        t.print(out);
        out.printf(Locale.ROOT, "total %.3f s on %s; sharray handed the workers the arrays in place (no copies); "
            + "a copy-based handoff would have moved %s.%n", total, parallel.describe(), Sizes.format(copy));
    }
}
