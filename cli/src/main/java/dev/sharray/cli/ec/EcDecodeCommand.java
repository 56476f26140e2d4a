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
            int damaged = set.damagedCount();
            double secs = FileDecoder.decode(set, output, force, compute, io);
            long len = set.header().originalLength();
            Ui.info(String.format("decoded %s (%s) from %d intact shards%s: %.2f s, %s", output, Sizes.format(len),
                set.intactCount(), damaged > 0 ? " (" + damaged + " missing or damaged, rebuilt)" : "", secs,
                Sizes.rate(len, secs)));
        }
        return 0;
    }
}
