package dev.sharray.cli.ec;

import dev.sharray.cli.CliException;
import dev.sharray.cli.ErrorMessages;
import dev.sharray.cli.Parallel;
import dev.sharray.cli.TaskFailedException;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.stream.IntStream;

/** Rebuilds the original file from any k intact shards of a set. */
public final class FileDecoder {
    private FileDecoder() {
    }

    /**
     * @param set      the scanned set (must be recoverable)
     * @param output   the file to write; written under a temporary name and renamed at the end
     * @param force    replace an existing output
     * @param compute  runs the reconstruction (worker JVMs or threads)
     * @param io       runs checksums and writes (threads in this JVM)
     * @return seconds taken
     */
    public static double decode(ShardSet set, Path output, boolean force, Parallel compute, Parallel io) {
        long t0 = System.nanoTime();
        Inputs.requireWritableOutput(output, force);
        Inputs.requireNotAShard(output, set);
        set.requireRecoverable();
        ShardHeader h = set.header();
        long length = h.originalLength();
        long shardLen = h.shardLength();
        try (StagedFiles staged = new StagedFiles()) {
            FileChannel out = staged.create(output);
            if (length > 0) {
                // full length up front (sparse): positional copies need their position inside the file
                Io.writeFully(out, java.nio.ByteBuffer.allocate(1), length - 1);
            }
            final Set<Integer> padded = new ConcurrentSkipListSet<>();
            WindowReconstructor.run(set, true, compute, "decode", win ->
                io.map(i -> {
                    long pos = i * shardLen + win.c0();
                    if (pos < length) {
                        win.copy(i, (int) Math.min(win.w(), length - pos), out, pos);
                    }
                    if (pos + win.w() > length && !win.zerosFrom(i, (int) Math.max(0, length - pos))) {
                        padded.add(i);
                    }
                    return null;
                }, IntStream.range(0, h.k()).boxed().toList()));
            if (!padded.isEmpty()) {
                throw new CliException(paddingMessage(set, List.copyOf(padded), output));
            }
            if (out.size() != length) {
                out.truncate(length);
            }
            set.requireIntactShardsUnchanged("decoding");
            staged.commit();
        } catch (IOException | TaskFailedException e) {
            throw new CliException("cannot write " + output + ": " + ErrorMessages.reason(e), e);
        }
        return (System.nanoTime() - t0) / 1e9;
    }

    /**
     * Encode writes zeros past the end of the file, up to k shard lengths (fewer than k bytes). Bytes that are not
     * zero there mean the headers' original length is wrong, or a shard is not the one encoded, though every checksum
     * is valid: a header edited with its checksum recomputed to a shorter length made decode write the file cut short,
     * with exit 0 (ecfuzz review 51). The output would be wrong either way, so none is written.
     */
    private static String paddingMessage(ShardSet set, List<Integer> shards, Path output) {
        return "will not decode " + set.dir() + ": data " + ShardAgreement.Result.shards(shards)
            + ShardAgreement.Result.verb(shards, " holds", " hold") + " non-zero bytes past the original length of "
            + set.header().originalLength() + " bytes the headers give, where encode writes zeros; the original length in"
            + " the headers is wrong, or a shard is not the one encoded, though every checksum is valid ('sharray ec"
            + " verify' on it checks which shards agree); nothing was written to " + output;
    }
}
