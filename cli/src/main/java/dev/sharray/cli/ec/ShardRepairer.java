package dev.sharray.cli.ec;

import dev.sharray.cli.CliException;
import dev.sharray.cli.ErrorMessages;
import dev.sharray.cli.Parallel;
import dev.sharray.cli.TaskFailedException;
import dev.sharray.codec.Crc32c;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Rewrites the missing or damaged shards of a recoverable set; intact shards are never touched. */
public final class ShardRepairer {
    private ShardRepairer() {
    }

    /**
     * @param set      the scanned set
     * @param compute  runs the reconstruction (worker JVMs or threads)
     * @param io       runs checksums and writes (threads in this JVM)
     * @return the indices rewritten (empty when the set was intact)
     */
    public static List<Integer> repair(ShardSet set, Parallel compute, Parallel io) {
        set.requireRecoverable();
        requireAgreement(set, io);
        ShardHeader h = set.header();
        List<Integer> targets = new ArrayList<>();
        for (ShardEntry e : set.entries()) {
            if (!e.intact()) {
                targets.add(e.index());
            }
        }
        if (targets.isEmpty()) {
            return targets;
        }
        requireNoIntactShardRewritten(set, targets);
        int n = h.k() + h.m();
        try (StagedFiles staged = new StagedFiles()) {
            FileChannel[] out = new FileChannel[n];
            int[] crcs = new int[n];
            for (int t : targets) {
                out[t] = staged.create(ShardFiles.shard(set.dir(), t));
                out[t].position(ShardHeader.SIZE);
            }
            WindowReconstructor.run(set, false, compute, "repair", win ->
                io.map(t -> {
                    ByteBuffer b = win.rebuilt()[t].duplicate().position(0).limit(win.w());
                    crcs[t] = Crc32c.update(crcs[t], b);
                    Io.writeFully(out[t], b, -1);
                    return null;
                }, targets));
            for (int t : targets) {
                Io.writeFully(out[t], h.withIndex(t).withBodyCrc(crcs[t]).toBuffer(), 0);
            }
            set.requireIntactShardsUnchanged("repairing");
            staged.commit();
        } catch (IOException | TaskFailedException e) {
            throw new CliException("cannot repair " + set.dir() + ": " + ErrorMessages.reason(e), e);
        }
        return targets;
    }

    /**
     * Refuses a set whose intact shards disagree. Shards rebuilt from them would carry valid checksums over bytes
     * no encoding wrote, and with every checksum valid nothing tells which shard is wrong: a repair could only
     * replace a shard it cannot prove wrong, or hide the disagreement under new checksums.
     */
    private static void requireAgreement(ShardSet set, Parallel io) {
        final ShardAgreement.Result agreement;
        try {
            agreement = ShardAgreement.check(set, io);
            if (!agreement.agree()) {
                set.requireIntactShardsUnchanged("repairing"); // a shard written since the scan: that is why
            }
        } catch (IOException e) {
            throw new CliException("cannot repair " + set.dir() + ": " + ErrorMessages.reason(e), e);
        }
        if (!agreement.agree()) {
            throw new CliException("will not repair " + set.dir() + ": " + agreement.problem() + "; nothing was written"
                + " ('sharray ec verify' on it lists the shards)");
        }
    }

    /**
     * A damaged shard's file can be the very file an intact shard links to (shard-01.sre -> shard-05.sre after a
     * rename): rewriting it would destroy the intact shard.
     */
    private static void requireNoIntactShardRewritten(ShardSet set, List<Integer> targets) {
        for (int t : targets) {
            Path rewritten = ShardFiles.shard(set.dir(), t);
            for (ShardEntry e : set.entries()) {
                if (e.intact() && Inputs.holds(rewritten, e.path())) {
                    throw new CliException("cannot repair " + set.dir() + ": " + rewritten + " is the file intact shard "
                        + e.index() + " (" + e.path() + ") links to; rewriting it would destroy that shard");
                }
            }
        }
    }
}
