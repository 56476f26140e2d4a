package dev.sharray.cli.ec;

import dev.sharray.cli.Parallel;
import dev.sharray.cli.Parallels;
import dev.sharray.cli.Sizes;
import dev.sharray.cli.TextTable;
import dev.sharray.cli.Ui;
import dev.sharray.cli.WorkersOption;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

/** {@code sharray ec verify DIR}: reports each shard and whether the set is recoverable. */
@Command(name = "verify", mixinStandardHelpOptions = true,
    description = {"Check every shard in DIR: intact, missing, corrupted, truncated, foreign (another set), "
        + "unsupported or unreadable; say whether the file is recoverable. Nothing is modified."},
    footer = {"", "Exit codes: 0 all shards intact, 1 some shards damaged or the set unrecoverable, 2 usage error."})
public final class EcVerifyCommand implements Callable<Integer> {
    @Mixin
    WorkersOption workers;

    @Parameters(index = "0", paramLabel = "DIR", description = "The shard directory.")
    Path dir;

    @Override
    public Integer call() {
        try (Parallel parallel = Parallels.local(workers.workers())) {
            ShardSet set = ShardSet.scan(dir, parallel);
            print(set, Ui.out());
            return set.intactCount() == set.entries().size() ? 0 : 1;
        }
    }

    static void print(ShardSet set, PrintStream out) {
        ShardHeader h = set.header();
        out.printf("set %016x: RS(%d,%d) %s, shard length %s, original length %s (%d bytes)%n", h.setId(), h.k(), h.m(),
            h.matrix(), Sizes.format(h.shardLength()), Sizes.format(h.originalLength()), h.originalLength());
        TextTable t = new TextTable(">shard", "kind", "file", "status", "detail");
        for (ShardEntry e : set.entries()) {
            t.row(e.index(), e.index() < h.k() ? "data" : "parity", e.path().getFileName(), e.status().label(), e.detail());
        }
        t.print(out);
        int intact = set.intactCount();
        int n = set.entries().size();
        String verdict = intact == n ? "all shards intact"
            : set.recoverable() ? "recoverable (" + (n - intact) + " damaged" + (set.rivalSet() == null
                ? "; run 'sharray ec repair')" : ")")
            : "NOT recoverable (need " + h.k() + " intact shards)";
        out.printf("%d of %d shards intact; %s%s%n", intact, n, verdict,
            set.foreignSets() > 0 ? "; shards of " + set.foreignSets() + " other set(s) ignored" : "");
        if (set.rivalSet() != null && set.recoverable()) {
            out.printf("this folder holds two encodings with enough intact shards each to be decoded, %s: decode and"
                + " repair refuse it until one set's shard files are moved to a folder of their own%n", set.bothSets());
        } else if (set.rivalSet() != null) {
            out.printf("another encoding here decodes on its own, %s: move its shard files to a folder of their own%n",
                set.rivalSet());
        }
    }
}
