package dev.sharray.cli.ec;

import dev.sharray.DType;
import dev.sharray.SharedArray;
import dev.sharray.cli.Parallel;
import dev.sharray.cli.Progress;
import dev.sharray.cli.SharedMemory;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Walks a shard set window by window: the workers rebuild the damaged shards' window into shared scratch
 * rows (mapping the intact shard files themselves) while a writer thread hands the previous window to a
 * {@link Sink} (scratch rows are double-buffered).
 */
final class WindowReconstructor {
    /** Receives each window. */
    interface Sink {
        void accept(Window window) throws IOException;
    }

    /**
     * One window of the set.
     *
     * @param c0      first column
     * @param w       columns
     * @param rebuilt per non-intact shard, its rebuilt window (null for intact shards)
     * @param intact  per intact shard, a read channel on its file (null for the others); one task at a time
     */
    record Window(long c0, int w, ByteBuffer[] rebuilt, FileChannel[] intact) {
        /** Appends or writes shard {@code i}'s window ({@code len} first bytes) to {@code out} at {@code pos} (-1: append). */
        void copy(int i, int len, FileChannel out, long pos) throws IOException {
            if (rebuilt[i] != null) {
                Io.writeFully(out, rebuilt[i].duplicate().position(0).limit(len), pos);
                return;
            }
            FileChannel in = intact[i];
            if (pos < 0) {
                Io.transferFully(in, ShardHeader.SIZE + c0, len, out, "shard " + i);
                return;
            }
            for (long done = 0; done < len; ) {
                long t = out.transferFrom(in.position(ShardHeader.SIZE + c0 + done), pos + done, len - done);
                if (t <= 0) {
                    throw new IOException("shard " + i + " shrank while reading");
                }
                done += t;
            }
        }

        /**
         * @return whether shard {@code i}'s window holds only zeros from column {@code from} (relative to c0) on; for
         *     the padding past the end of the file, fewer than k bytes in all, so read into the heap
         */
        boolean zerosFrom(int i, int from) throws IOException {
            final ByteBuffer b;
            if (rebuilt[i] != null) {
                b = rebuilt[i].duplicate().limit(w).position(from);
            } else {
                b = Io.readFully(intact[i], ByteBuffer.allocate(w - from), ShardHeader.SIZE + c0 + from, "shard " + i);
            }
            return ShardAgreement.firstNonZero(b) < 0;
        }
    }

    private WindowReconstructor() {
    }

    /**
     * @param set      a recoverable set
     * @param dataOnly rebuild only data shards (decode) or all damaged shards (repair)
     * @param compute  runs the reconstruction (worker JVMs or threads)
     * @param task     progress label
     * @param sink     consumes each window
     */
    static void run(ShardSet set, boolean dataOnly, Parallel compute, String task, Sink sink) throws IOException {
        ShardHeader h = set.header();
        int k = h.k();
        int n = k + h.m();
        long shardLen = h.shardLength();
        boolean[] present = set.present();
        int[] rowOf = new int[n];
        Arrays.fill(rowOf, -1);
        int rows = 0;
        boolean needCompute = false;
        List<String> paths = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            paths.add(set.entries().get(i).path().toAbsolutePath().toString());
            needCompute |= !present[i] && (!dataOnly || i < k);
        }
        for (int i = 0; i < n && needCompute; i++) {
            // the codec writes every shard it is not given as present: each needs a row of its own; with
            // nothing to rebuild (a decode of intact data, its parity unread) no row is needed
            if (!present[i]) {
                rowOf[i] = rows++;
            }
        }
        int window = Windows.columns(rows, shardLen);
        FileChannel[] in = new FileChannel[n];
        try (SharedArray scratch = SharedArray.create(DType.UINT8, Math.max(1, 2L * rows), window);
             Progress progress = Progress.start(task, k * shardLen);
             WriteBehind writer = new WriteBehind()) {
            for (int i = 0; i < n; i++) {
                if (present[i]) {
                    in[i] = FileChannel.open(set.entries().get(i).path(), StandardOpenOption.READ);
                }
            }
            int buffer = 0;
            for (long c0 = 0; c0 < shardLen; c0 += window) {
                int w = (int) Math.min(window, shardLen - c0);
                int[] rowsNow = new int[n];
                ByteBuffer[] rebuilt = new ByteBuffer[n];
                for (int i = 0; i < n; i++) {
                    rowsNow[i] = rowOf[i] < 0 ? -1 : buffer * rows + rowOf[i];
                    if (rowsNow[i] >= 0) {
                        rebuilt[i] = SharedMemory.bytes(scratch, (long) rowsNow[i] * window, w);
                    }
                }
                if (needCompute) {
                    ReconstructJob job = new ReconstructJob(paths, present, rowsNow, k, h.m(), h.matrix(), window, dataOnly);
                    List<WindowPart> parts = Windows.split(c0, w, compute.workers()).stream()
                        .map(p -> new WindowPart(job, scratch, p[0], p[1], (int) p[2], 0)).toList();
                    compute.map(WindowCoder::reconstruct, parts);
                }
                Window win = new Window(c0, w, rebuilt, in);
                writer.submit(() -> {
                    sink.accept(win);
                    progress.advance((long) k * win.w());
                    return null;
                });
                buffer ^= 1;
            }
            writer.await();
        } finally {
            for (FileChannel ch : in) {
                if (ch != null) {
                    ch.close();
                }
            }
        }
    }
}
