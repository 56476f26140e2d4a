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
 * rows (mapping the intact shard files themselves), then a {@link Sink} consumes every shard's window
 * (intact ones mapped read-only here).
 */
final class WindowReconstructor {
    /** Receives each window: every shard's window, positioned at 0 with limit {@code w}. */
    interface Sink {
        void accept(long c0, int w, ByteBuffer[] shards) throws IOException;
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
            if (!present[i]) {
                rowOf[i] = rows++;
                needCompute |= !dataOnly || i < k;
            }
        }
        int window = (int) Math.min(Math.max(64 << 10, ((64L << 20) / Math.max(1, rows)) & ~63L), Windows.WINDOW);
        window = (int) Math.min(window, Math.max(1, shardLen));
        ReconstructJob job = new ReconstructJob(paths, present, rowOf, k, h.m(), h.matrix(), window, dataOnly);
        FileChannel[] in = new FileChannel[n];
        try (SharedArray scratch = SharedArray.create(DType.UINT8, Math.max(1, rows), window);
             Progress progress = Progress.start(task, k * shardLen)) {
            for (int i = 0; i < n; i++) {
                if (present[i]) {
                    in[i] = FileChannel.open(set.entries().get(i).path(), StandardOpenOption.READ);
                }
            }
            for (long c0 = 0; c0 < shardLen; c0 += window) {
                int w = (int) Math.min(window, shardLen - c0);
                ByteBuffer[] shards = new ByteBuffer[n];
                List<ByteBuffer> maps = new ArrayList<>();
                try {
                    if (needCompute) {
                        compute.map(part -> WindowCoder.reconstruct(job, scratch, part), Windows.split(c0, w, compute.workers()));
                    }
                    for (int i = 0; i < n; i++) {
                        if (present[i]) {
                            ByteBuffer b = Mapped.map(in[i], ShardHeader.SIZE + c0, w);
                            maps.add(b);
                            shards[i] = b;
                        } else {
                            shards[i] = SharedMemory.bytes(scratch, (long) rowOf[i] * window, w);
                        }
                    }
                    sink.accept(c0, w, shards);
                } finally {
                    maps.forEach(Mapped::unmap);
                }
                progress.advance((long) k * w);
            }
        } finally {
            for (FileChannel ch : in) {
                if (ch != null) {
                    ch.close();
                }
            }
        }
    }
}
