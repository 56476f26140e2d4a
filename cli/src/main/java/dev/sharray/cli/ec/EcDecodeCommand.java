package dev.sharray.cli.ec;

import dev.sharray.cli.Parallel;
import dev.sharray.cli.Parallels;
import dev.sharray.cli.Sizes;
import dev.sharray.cli.Ui;
import dev.sharray.cli.WorkersOption;
import dev.sharray.cli.Workload;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code sharray ec decode DIR -o FILE}: rebuilds the original file from any k intact shards. */
@Command(name = "decode", mixinStandardHelpOptions = true,
    description = {"Rebuild the original file from any k intact shards in DIR.",
        "Corrupted, truncated or foreign shards are detected by their checksums and treated as missing."})
public final class EcDecodeCommand implements Callable<Integer> {
    @Mixin
    WorkersOption workers;

    @Parameters(index = "0", paramLabel = "DIR", description = "The shard directory.")
    Path dir;

    @Option(names = {"-o", "--output"}, paramLabel = "FILE", required = true, description = "The file to write.")
    Path output;

    @Option(names = {"-f", "--force"}, description = "Overwrite FILE if it exists.")
    boolean force;

    @Override
    public Integer call() {
        Inputs.requireWritableOutput(output, force);
        try (Parallel compute = workers.compute(Workload.NATIVE_LOOPS); Parallel io = Parallels.local(workers.workers())) {
            ShardSet set = ShardSet.scanForDecoding(dir, io);
            set.requireNoRivalSet("decode");
            double secs = FileDecoder.decode(set, output, force, compute, io);
            long len = set.header().originalLength();
            Ui.info(String.format("decoded %s (%s) from %s: %.2f s, %s", output, Sizes.format(len), sources(set), secs,
                Sizes.rate(len, secs)));
        }
        return 0;
    }

    /**
     * What the file was decoded from, counted as the scan knows it. With every data shard intact the parity
     * bodies are not read ({@link ShardStatus#UNCHECKED}): the count is of the data shards, and says so. It used to
     * be "from 10 intact shards" for a set of 14 intact shards, and "1 intact shards" for a single one.
     */
    static String sources(ShardSet set) {
        final int k = set.header().k();
        final int damaged = set.damagedCount();
        final long unchecked = set.entries().stream().filter(e -> e.status() == ShardStatus.UNCHECKED).count();
        final boolean dataIntact = set.entries().stream().filter(e -> e.index() < k).allMatch(ShardEntry::intact);
        if (dataIntact) {
            return "its " + shards(k, "data shard") + (k == 1 ? ", intact" : ", all intact")
                + (unchecked > 0 ? " (parity not read)" : "")
                + (damaged > 0 ? "; " + shards(damaged, "parity shard") + " missing or damaged" : "") + othersIgnored(set);
        }
        return shards(set.intactCount(), "intact shard") + " of " + set.entries().size() + " (" + damaged
            + " missing or damaged)" + othersIgnored(set);
    }

    /** As verify says it: a shard of another encoding is counted as damaged, and the summary must not hide why. */
    private static String othersIgnored(ShardSet set) {
        return set.foreignSets() > 0 ? "; shards of " + set.foreignSets() + " other set(s) ignored" : "";
    }

    private static String shards(long n, String what) {
        return n + " " + what + (n == 1 ? "" : "s");
    }
}
