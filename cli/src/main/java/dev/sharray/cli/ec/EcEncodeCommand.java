package dev.sharray.cli.ec;

import dev.sharray.cli.Parallel;
import dev.sharray.cli.Parallels;
import dev.sharray.cli.Sizes;
import dev.sharray.cli.Ui;
import dev.sharray.cli.WorkersOption;
import dev.sharray.cli.Workload;
import dev.sharray.codec.ErasureCodec;
import dev.sharray.codec.Matrix;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code sharray ec encode FILE}: writes k + m shard files with checksummed headers. */
@Command(name = "encode", mixinStandardHelpOptions = true,
    description = {"Encode FILE into k data + m parity shard files (shard-NN.sre) in DIR.",
        "Any k intact shards rebuild the file. FILE is mapped read-only and never modified."})
public final class EcEncodeCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    WorkersOption workers;

    @Parameters(index = "0", paramLabel = "FILE", description = "The file to encode.")
    Path file;

    @Option(names = "-k", paramLabel = "K", defaultValue = "10", description = "Data shards (default ${DEFAULT-VALUE}).")
    int k;

    @Option(names = "-m", paramLabel = "M", defaultValue = "4", description = "Parity shards (default ${DEFAULT-VALUE}); k + m <= 256.")
    int m;

    @Option(names = {"-o", "--output"}, paramLabel = "DIR", description = "Shard directory (default: FILE.shards).")
    Path out;

    @Option(names = "--matrix", defaultValue = "VANDERMONDE", description = "VANDERMONDE or CAUCHY (default ${DEFAULT-VALUE}).")
    Matrix matrix;

    @Option(names = {"-f", "--force"}, description = "Replace shard files already in DIR.")
    boolean force;

    @Override
    public Integer call() {
        if (k < 1 || m < 1 || m > ErasureCodec.MAX_SHARDS - k) { // not k + m > MAX: the sum can overflow
            throw new ParameterException(spec.commandLine(),
                "need k >= 1, m >= 1 and k + m <= " + ErasureCodec.MAX_SHARDS + ", got k=" + k + " m=" + m);
        }
        Path dir = out != null ? out : file.resolveSibling(file.getFileName() + ".shards");
        Inputs.requireReadableFile(file);
        try (Parallel compute = workers.compute(Workload.NATIVE_LOOPS); Parallel io = Parallels.local(workers.workers())) {
            FileEncoder.Result r = FileEncoder.encode(file, dir, k, m, matrix, force, compute, io);
            ShardHeader h = r.header();
            Ui.info(String.format("encoded %s (%s) into %d+%d shards of %s in %s: %.2f s, %s on %s", file,
                Sizes.format(h.originalLength()), k, m, Sizes.format(h.shardLength()), dir, r.seconds(),
                Sizes.rate(h.originalLength(), r.seconds()), compute.describe()));
            Ui.out().println(dir);
        }
        return 0;
    }
}
