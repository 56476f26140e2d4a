package dev.sharray.cli.ec;

import dev.sharray.cli.Parallel;
import dev.sharray.cli.Parallels;
import dev.sharray.cli.Ui;
import dev.sharray.cli.WorkersOption;
import dev.sharray.cli.Workload;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

/** {@code sharray ec repair DIR}: rewrites missing or damaged shards from the intact ones. */
@Command(name = "repair", mixinStandardHelpOptions = true,
    description = {"Rewrite the missing, corrupted, truncated or foreign shards in DIR from any k intact ones.",
        "Intact shards are never modified; new shards are written aside and renamed into place."})
public final class EcRepairCommand implements Callable<Integer> {
    @Mixin
    WorkersOption workers;

    @Parameters(index = "0", paramLabel = "DIR", description = "The shard directory.")
    Path dir;

    @Override
    public Integer call() {
        try (Parallel compute = workers.compute(Workload.NATIVE_LOOPS); Parallel io = Parallels.local(workers.workers())) {
            ShardSet set = ShardSet.scan(dir, io);
            set.requireNoRivalSet("repair");
            List<Integer> fixed = ShardRepairer.repair(set, compute, io);
            if (fixed.isEmpty()) {
                Ui.out().println("all " + set.entries().size() + " shards intact; nothing to repair");
            } else {
                Ui.out().println("repaired shards " + fixed + " in " + dir);
            }
        }
        return 0;
    }
}
