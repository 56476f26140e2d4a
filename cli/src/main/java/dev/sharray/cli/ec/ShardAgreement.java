package dev.sharray.cli.ec;

import dev.sharray.cli.ErrorMessages;
import dev.sharray.cli.Parallel;
import dev.sharray.cli.TaskFailedException;
import dev.sharray.codec.ErasureCodec;
import dev.sharray.codec.MemoryFaultException;
import dev.sharray.codec.SharedStripes;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

/**
 * Whether the intact shards of a set agree with one another, beyond their checksums: that any k of them give the
 * others byte for byte, and that the data shards hold zeros past the original length, as encode writes them. A
 * checksum says only that a body is the one its header describes: headers edited with their checksums recomputed (the
 * matrix, the original length; ecfuzz review 51) made a set that verified "all intact" and decoded to wrong bytes,
 * with exit 0. With every checksum valid a disagreement cannot say which shard is wrong, and the result says so.
 */
final class ShardAgreement {
    /**
     * What the check found.
     *
     * @param sources         the k intact shards the others were rebuilt from (empty when fewer than k + 1 are intact:
     *                        nothing to compare)
     * @param compared        the other intact shards, each compared with its bytes as the sources give them
     * @param disagreeing     those of {@code compared} that differ somewhere
     * @param firstDifference the first body byte where one differs, -1 when none does
     * @param paddingShards   intact data shards whose bytes past the original length are not all zero
     * @param paddingStart    the number of file bytes the headers say there are (where the padding starts)
     */
    record Result(List<Integer> sources, List<Integer> compared, List<Integer> disagreeing, long firstDifference,
                  List<Integer> paddingShards, long paddingStart) {
        /** @return whether nothing disagrees (also when there was nothing to compare) */
        boolean agree() {
            return disagreeing.isEmpty() && paddingShards.isEmpty();
        }

        /** @return what disagrees, for a message; null when nothing does */
        String problem() {
            final List<String> parts = new ArrayList<>();
            if (!disagreeing.isEmpty()) {
                final List<Integer> agreeing = compared.stream().filter(i -> !disagreeing.contains(i)).toList();
                parts.add("the shards disagree: " + shards(disagreeing) + verb(disagreeing, " differs", " differ")
                    + " from what " + shards(sources) + " give (first at body byte " + firstDifference + ")"
                    // a single wrong source changes every shard rebuilt from it (each coefficient is non-zero)
                    + (agreeing.isEmpty() ? "" : "; " + shards(agreeing) + " agree with them, so " + shards(disagreeing)
                    + verb(disagreeing, " is", " are") + " the likeliest wrong"));
            }
            if (!paddingShards.isEmpty()) {
                parts.add("data " + shards(paddingShards) + verb(paddingShards, " holds", " hold") + " non-zero bytes"
                    + " past the original length of " + paddingStart + " bytes the headers give, where encode writes"
                    + " zeros (a wrong original length, or a changed shard)");
            }
            if (parts.isEmpty()) {
                return null;
            }
            return String.join("; ", parts) + ". Every checksum is valid, so which shard is wrong cannot be told"
                + " (a header or body rewritten with its checksum recomputed)";
        }

        /** @return what agreed, for a message; null when nothing was compared */
        String agreement() {
            return compared.isEmpty() ? null : shards(compared) + " agree with what " + shards(sources) + " give";
        }

        /** @return {@code one} for a single index, else {@code many} */
        static String verb(List<Integer> indexes, String one, String many) {
            return indexes.size() == 1 ? one : many;
        }

        /** @return "shard 3", "shards 0-9, 12": runs of consecutive indexes as ranges (k can be 255) */
        static String shards(List<Integer> indexes) {
            final List<String> runs = new ArrayList<>();
            for (int a = 0; a < indexes.size(); ) {
                int b = a;
                while (b + 1 < indexes.size() && indexes.get(b + 1) == indexes.get(b) + 1) {
                    b++;
                }
                runs.add(b == a ? String.valueOf(indexes.get(a)) : b == a + 1 ? indexes.get(a) + ", " + indexes.get(b)
                    : indexes.get(a) + "-" + indexes.get(b));
                a = b + 1;
            }
            return (indexes.size() == 1 ? "shard " : "shards ") + String.join(", ", runs);
        }
    }

    private ShardAgreement() {
    }

    /**
     * @param h a set's header
     * @param i a data shard's index
     * @return the body offset in shard {@code i} where its zero padding starts ({@code shardLength} when it has none)
     */
    static long paddingStart(ShardHeader h, int i) {
        return Math.max(0, Math.min(h.shardLength(), h.originalLength() - i * h.shardLength()));
    }

    /** @return the position of the first non-zero byte among {@code b}'s remaining ones, -1 when all are zero */
    static int firstNonZero(ByteBuffer b) {
        for (int p = b.position(); p < b.limit(); p++) {
            if (b.get(p) != 0) {
                return p;
            }
        }
        return -1;
    }

    /**
     * Reads the intact shards' bodies once more, in parallel by columns: k of them (data first) rebuild the other
     * intact ones, which are compared with their files; and the padding of the intact data shards is read.
     *
     * @param set      a scanned set (every intact shard's body was checked)
     * @param parallel threads of this JVM (the tasks share file channels)
     * @return what disagrees
     * @throws IOException when a shard cannot be read, or shrank
     */
    static Result check(ShardSet set, Parallel parallel) throws IOException {
        final ShardHeader h = set.header();
        final int k = h.k();
        final int n = k + h.m();
        final List<Integer> intact = set.entries().stream().filter(ShardEntry::intact).map(ShardEntry::index).toList();
        final FileChannel[] in = new FileChannel[n];
        try {
            for (int i : intact) {
                in[i] = FileChannel.open(set.entries().get(i).path(), StandardOpenOption.READ);
            }
            final List<Integer> padding = new ArrayList<>();
            for (int i : intact) {
                if (i < k && nonZeroPadding(h, i, in[i])) {
                    padding.add(i);
                }
            }
            if (intact.size() <= k || h.shardLength() == 0) {
                return new Result(List.of(), List.of(), List.of(), -1, padding, h.originalLength());
            }
            final List<Integer> sources = intact.subList(0, k);
            final List<Integer> compared = intact.subList(k, intact.size());
            // n rows per part: a part read with read calls (below) holds every shard's columns
            final int cols = Windows.columns(n, h.shardLength());
            final List<long[]> parts = new ArrayList<>();
            for (long c = 0; c < h.shardLength(); c += cols) {
                parts.add(new long[] {c, Math.min(cols, h.shardLength() - c)});
            }
            final boolean[] present = new boolean[n];
            sources.forEach(i -> present[i] = true);
            final TreeSet<Integer> disagreeing = new TreeSet<>();
            long first = -1;
            final List<long[]> found;
            try {
                found = parallel.map(p -> comparePart(set, in, present, compared, p[0], (int) p[1]), parts);
            } catch (TaskFailedException e) {
                throw new IOException(ErrorMessages.reason(e), e);
            }
            for (long[] d : found) {
                for (int j = 1; j < d.length; j++) {
                    disagreeing.add((int) d[j]);
                }
                if (d[0] >= 0 && first < 0) {
                    first = d[0]; // parts come back in column order
                }
            }
            return new Result(List.copyOf(sources), List.copyOf(compared), List.copyOf(disagreeing), first, padding,
                h.originalLength());
        } finally {
            for (FileChannel ch : in) {
                if (ch != null) {
                    ch.close();
                }
            }
        }
    }

    private static boolean nonZeroPadding(ShardHeader h, int i, FileChannel ch) throws IOException {
        final long start = paddingStart(h, i);
        if (start == h.shardLength()) {
            return false;
        }
        // fewer than k bytes in all (shard length is ceil(original length / k)), so a read call
        final ByteBuffer b = ByteBuffer.allocate((int) (h.shardLength() - start));
        return firstNonZero(Io.readFully(ch, b, ShardHeader.SIZE + start, "shard " + i)) >= 0;
    }

    /**
     * Compares columns {@code [col, col+len)} through mappings of the shard files; where a mapping faults though no
     * file shrank, through read calls: a hole of a sparse shard on a full tmpfs faults when mapped, and reads as zeros
     * (as {@link ShardSet}'s checksums do).
     *
     * @return {@code {first differing column or -1, then the indexes that differ}}
     */
    private static long[] comparePart(ShardSet set, FileChannel[] in, boolean[] present, List<Integer> compared,
                                      long col, int len) throws IOException {
        try {
            return comparePart(set, in, present, compared, col, len, false);
        } catch (MemoryFaultException e) {
            final long size = ShardHeader.SIZE + set.header().shardLength();
            for (int i = 0; i < in.length; i++) {
                if (in[i] != null && in[i].size() != size) {
                    throw new IOException(shrank(set, i), e);
                }
            }
            return comparePart(set, in, present, compared, col, len, true);
        }
    }

    private static String shrank(ShardSet set, int i) {
        return "shard " + i + " (" + set.entries().get(i).path() + ") shrank while it was being checked";
    }

    /**
     * With every shard intact, {@link ErasureCodec#verify} over the mapped files (no scratch memory, nothing written);
     * otherwise, or to tell which shards differ, the sources rebuild every other shard into scratch memory, and the
     * compared shards are read with read calls to be compared in Java (a fault under a mapping there would not be
     * the codec's guarded one).
     *
     * @param read read every shard with read calls, mapping none
     */
    private static long[] comparePart(ShardSet set, FileChannel[] in, boolean[] present, List<Integer> compared,
                                      long col, int len, boolean read) throws IOException {
        final ShardHeader h = set.header();
        final int n = h.k() + h.m();
        final boolean allIntact = compared.size() == h.m();
        final ErasureCodec codec = SharedStripes.codec(h.k(), h.m(), h.matrix());
        final ByteBuffer[] files = new ByteBuffer[n];
        final List<ByteBuffer> owned = new ArrayList<>();
        try {
            for (int i = 0; i < n; i++) {
                if (in[i] != null && (present[i] || allIntact)) {
                    files[i] = read ? read(set, in[i], i, col, len) : map(set, in[i], i, col, len);
                    owned.add(files[i]);
                }
            }
            if (allIntact && codec.verify(files)) {
                return new long[] {-1};
            }
            final ByteBuffer[] rebuilt = files.clone();
            for (int i = 0; i < n; i++) {
                if (!present[i]) {
                    rebuilt[i] = ByteBuffer.allocateDirect(len);
                    owned.add(rebuilt[i]);
                }
            }
            codec.reconstruct(rebuilt, present);
            long first = -1;
            final List<Integer> differ = new ArrayList<>();
            for (int i : compared) {
                final ByteBuffer file = read && files[i] != null ? files[i] : read(set, in[i], i, col, len);
                if (file != files[i]) {
                    owned.add(file);
                }
                final int at = rebuilt[i].mismatch(file);
                if (at >= 0) {
                    differ.add(i);
                    first = first < 0 ? col + at : Math.min(first, col + at);
                }
            }
            final long[] out = new long[1 + differ.size()];
            out[0] = first;
            for (int j = 0; j < differ.size(); j++) {
                out[1 + j] = differ.get(j);
            }
            return out;
        } finally {
            owned.forEach(Mapped::unmap); // mappings and scratch alike: freed here, never left to the GC
        }
    }

    private static ByteBuffer map(ShardSet set, FileChannel ch, int i, long col, int len) throws IOException {
        try {
            return Mapped.map(ch, ShardHeader.SIZE + col, len);
        } catch (EOFException e) {
            throw new IOException(shrank(set, i), e);
        }
    }

    /** @return a direct copy of shard {@code i}'s columns {@code [col, col+len)}, to free with {@link Mapped#unmap} */
    private static ByteBuffer read(ShardSet set, FileChannel ch, int i, long col, int len) throws IOException {
        final ByteBuffer b = ByteBuffer.allocateDirect(len);
        try {
            return Io.readFully(ch, b, ShardHeader.SIZE + col, "shard " + i + " (" + set.entries().get(i).path() + ")");
        } catch (IOException | RuntimeException e) {
            Mapped.unmap(b); // scratch freed here, never left to the GC
            throw e;
        }
    }
}
