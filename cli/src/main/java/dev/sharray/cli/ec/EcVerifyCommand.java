package dev.sharray.cli.ec;

import dev.sharray.cli.CliException;
import dev.sharray.cli.ErrorMessages;
import dev.sharray.cli.Parallel;
import dev.sharray.cli.Parallels;
import dev.sharray.cli.Sizes;
import dev.sharray.cli.TextTable;
import dev.sharray.cli.Ui;
import dev.sharray.cli.WorkersOption;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

/** {@code sharray ec verify DIR}: reports each shard and whether the set is recoverable. */
@Command(name = "verify", mixinStandardHelpOptions = true,
    description = {"Check every shard in DIR: intact, missing, corrupted, truncated, foreign (another set), "
        + "unsupported or unreadable; say whether the file is recoverable. Nothing is modified.",
        "When more than k shards are intact, also check that they agree: k of them must give the others byte for "
        + "byte, and the data shards must hold zeros past the original length."},
    footer = {"", "Exit codes: 0 all shards intact and agreeing, 1 some shards damaged or disagreeing, or the set "
        + "unrecoverable, 2 usage error."})
public final class EcVerifyCommand implements Callable<Integer> {
    @Mixin
    WorkersOption workers;

    @Parameters(index = "0", paramLabel = "DIR", description = "The shard directory.")
    Path dir;

    @Override
    public Integer call() {
        try (Parallel parallel = Parallels.local(workers.workers())) {
            ShardSet set = ShardSet.scan(dir, parallel);
            ShardAgreement.Result agreement;
            try {
                agreement = ShardAgreement.check(set, parallel);
                if (!agreement.agree()) {
                    set.requireIntactShardsUnchanged("verifying"); // a shard written since the scan: that is why
                }
            } catch (IOException e) {
                throw new CliException("cannot check that the shards in " + dir + " agree: " + ErrorMessages.reason(e),
                    e);
            }
            print(set, agreement, Ui.out());
            return set.intactCount() == set.entries().size() && agreement.agree() ? 0 : 1;
        }
    }

    static void print(ShardSet set, ShardAgreement.Result agreement, PrintStream out) {
        ShardHeader h = set.header();
        out.printf("set %016x: RS(%d,%d) %s, shard length %s, original length %s (%d bytes)%n", h.setId(), h.k(), h.m(),
            h.matrix(), Sizes.format(h.shardLength()), Sizes.format(h.originalLength()), h.originalLength());
        TextTable t = new TextTable(">shard", "kind", "file", "status", "detail");
        for (ShardEntry e : set.entries()) {
            t.row(e.index(), e.index() < h.k() ? "data" : "parity", e.path().getFileName(), e.status().label(),
                e.intact() ? disagreement(agreement, e.index()) : e.detail());
        }
        t.print(out);
        int intact = set.intactCount();
        int n = set.entries().size();
        String verdict = !agreement.agree()
            ? "the shards DISAGREE (see below): 'sharray ec decode' may give wrong bytes and 'sharray ec repair' refuses it"
            : intact == n ? "all shards intact"
            : set.recoverable() ? "recoverable (" + (n - intact) + " damaged" + (set.rivalSet() == null
                ? "; run 'sharray ec repair')" : ")")
            : "NOT recoverable (need " + h.k() + " intact shards)";
        out.printf("%d of %d shards intact; %s%s%n", intact, n, verdict,
            set.foreignSets() > 0 ? "; shards of " + set.foreignSets() + " other set(s) ignored" : "");
        if (!agreement.agree()) {
            out.println(agreement.problem());
        } else if (!agreement.compared().isEmpty()) {
            out.println(agreement.agreement());
        }
        if (set.rivalSet() != null && set.recoverable()) {
            out.printf("this folder holds two encodings with enough intact shards each to be decoded, %s: decode and"
                + " repair refuse it until one set's shard files are moved to a folder of their own%n", set.bothSets());
        } else if (set.rivalSet() != null) {
            out.printf("another encoding here decodes on its own, %s: move its shard files to a folder of their own%n",
                set.rivalSet());
        }
    }

    /** @return the detail column of an intact shard: "" unless it disagrees */
    private static String disagreement(ShardAgreement.Result agreement, int i) {
        final boolean differs = agreement.disagreeing().contains(i);
        final boolean padding = agreement.paddingShards().contains(i);
        return differs && padding ? "differs from the others; non-zero padding" : differs ? "differs from the others"
            : padding ? "non-zero padding" : "";
    }
}
